package config

import (
	"fmt"
	"math"
	"math/rand/v2"

	"go.yaml.in/yaml/v3"
)

// Fixed returns the distribution that is always n.
func Fixed(n int) Distribution {
	return Distribution{Mean: float64(n), Min: n, Max: n}
}

// UnmarshalYAML accepts a fixed integer ("128") or a mapping with the keys
// mean, stdev, min and max; any other key is an error. On an error in a
// mapping, the values that could be decoded are kept.
func (d *Distribution) UnmarshalYAML(n *yaml.Node) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.ScalarNode:
		var v int
		if n.ShortTag() != "!!int" || n.Decode(&v) != nil {
			return distributionError(n, "must be an integer or a mapping with mean, stdev, min and max")
		}
		*d = Fixed(v)
		return nil
	case yaml.MappingNode:
		type plain Distribution
		var p plain
		err := n.Decode(&p)
		*d = Distribution(p)
		if err != nil {
			return err
		}
		fields := yamlFields(distributionType)
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i]
			if _, ok := fields[k.Value]; !ok && !isMergeKey(k) {
				return distributionError(k, fmt.Sprintf("unknown field %s in a distribution (use mean, stdev, min, max)", quote(k.Value)))
			}
		}
		return nil
	default:
		return distributionError(n, "must be an integer or a mapping with mean, stdev, min and max")
	}
}

// distributionError is a decoding error at node n, in the decoder's format.
func distributionError(n *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, msg)}}
}

// Sample draws a token count: a normal variate with the distribution's mean
// and standard deviation, rounded to the nearest integer and clamped to
// [Min, Max]. With Stdev 0 it is the rounded mean, clamped; r is then unused.
func (d Distribution) Sample(r *rand.Rand) int {
	v := d.Mean
	if d.Stdev > 0 {
		v += d.Stdev * r.NormFloat64()
	}
	v = math.Round(v)
	switch {
	case math.IsNaN(v) || v < float64(d.Min):
		return d.Min
	case v > float64(d.Max):
		return d.Max
	}
	return int(v)
}

// applyDefaults fills an unset distribution with Fixed(fallback), and an
// unset Min with 1 and Max with ⌈4·Mean⌉, at most LimitTokens. path locates
// the distribution for set, which reports whether a setting was given
// explicitly.
func (d *Distribution) applyDefaults(fallback int, path string, set func(string) bool) {
	if *d == (Distribution{}) && !set(path) {
		*d = Fixed(fallback)
		return
	}
	if d.Min == 0 && !set(path+".min") {
		d.Min = 1
	}
	if d.Max == 0 && !set(path+".max") && d.Mean > 0 && d.Mean <= LimitTokens {
		d.Max = int(min(math.Ceil(4*d.Mean), LimitTokens))
	}
}

// validate checks 0 < mean ≤ LimitTokens, 0 ≤ stdev, both finite, and
// 1 ≤ min ≤ mean ≤ max ≤ LimitTokens. A distribution given as a single
// number has one problem at most, reported at path itself.
func (d Distribution) validate(c *collector, path string) {
	if c.src.isFixed(path) {
		d.validateFixed(c, path)
		return
	}
	meanOK := false
	switch {
	case math.IsNaN(d.Mean) || math.IsInf(d.Mean, 0):
		c.add(path+".mean", "must be a finite number")
	case d.Mean <= 0:
		c.add(path+".mean", "must be > 0")
	case d.Mean > LimitTokens:
		c.add(path+".mean", "must be at most %d tokens", LimitTokens)
	default:
		meanOK = true
	}
	switch {
	case math.IsNaN(d.Stdev) || math.IsInf(d.Stdev, 0):
		c.add(path+".stdev", "must be a finite number")
	case d.Stdev < 0:
		c.add(path+".stdev", "must be >= 0")
	}
	switch {
	case d.Min < 1:
		c.add(path+".min", "must be >= 1")
	case d.Min > LimitTokens:
		c.add(path+".min", "must be at most %d tokens", LimitTokens)
	case meanOK && float64(d.Min) > d.Mean:
		c.add(path+".min", "must be <= mean (%g)", d.Mean)
	}
	switch {
	case d.Max > LimitTokens:
		c.add(path+".max", "must be at most %d tokens", LimitTokens)
	case meanOK && float64(d.Max) < d.Mean:
		c.add(path+".max", "must be >= mean (%g)", d.Mean)
	}
}

// validateFixed checks a distribution given as the single number Mean:
// 1 ≤ Mean ≤ LimitTokens.
func (d Distribution) validateFixed(c *collector, path string) {
	switch {
	case !(d.Mean >= 1):
		c.add(path, "must be a positive number of tokens")
	case d.Mean > LimitTokens:
		c.add(path, "must be at most %d tokens", LimitTokens)
	}
}
