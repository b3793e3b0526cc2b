package stats

import (
	"cmp"
	"math"
	"slices"
)

// WeightedSummary describes values that each stand for an integer number of
// units: per-request ITL weighted by output tokens − 1, TPOT weighted by
// output tokens. It carries no confidence intervals. Pointers are nil when
// no value has a positive weight.
type WeightedSummary struct {
	// Count is Σw, the summed token exposure, not the number of values.
	Count int64
	// Mean is Σ(v·w)/Σw.
	Mean *float64
	// Variance is the token-weighted population variance Σw·(v − mean)²/Σw
	// (0 when every value is the same), in the square of the values' unit.
	Variance *float64
	// StdDev is √Variance, computed directly (finite even where Variance
	// overflows).
	StdDev *float64
	// Min and Max are the extreme values among those with positive weight.
	Min, Max *float64
	// Percentiles holds one entry per level of Levels, in that order; Value
	// is the smallest value whose cumulative weight reaches q·Σw (compared
	// exactly in integers) and CI is always nil.
	Percentiles []Percentile
}

// Percentile returns the value at level l and true, or 0 and false when l is
// not a reported level or the summary is empty.
func (s WeightedSummary) Percentile(l Level) (float64, bool) {
	return percentileOf(s.Percentiles, l)
}

type weighted struct {
	v float64
	w int64
}

// SummarizeWeighted describes values[i] weighted by weights[i]. Pairs whose
// weight is zero or negative, or whose value is NaN, are ignored, and so are
// the extra elements of the longer slice. The inputs are not modified.
func SummarizeWeighted(values []float64, weights []int64) WeightedSummary {
	pairs := make([]weighted, 0, min(len(values), len(weights)))
	var total int64
	for i := range min(len(values), len(weights)) {
		if weights[i] > 0 && !math.IsNaN(values[i]) {
			pairs = append(pairs, weighted{values[i], weights[i]})
			total += weights[i]
		}
	}
	s := WeightedSummary{Count: total, Percentiles: emptyPercentiles()}
	if len(pairs) == 0 {
		return s
	}
	slices.SortFunc(pairs, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
	lo, hi := pairs[0].v, pairs[len(pairs)-1].v
	mean := weightedMean(pairs, total, lo, hi)
	s.Min, s.Max, s.Mean = ptr(lo), ptr(hi), ptr(mean)
	variance, sd := weightedVariance(pairs, total, mean, lo, hi)
	s.Variance, s.StdDev = ptr(variance), ptr(sd)
	// Levels increase, so each search resumes where the last one stopped;
	// the last pair's cumulative weight is Σw, which every level reaches.
	var cum int64
	i := -1
	for k := range s.Percentiles {
		l := s.Percentiles[k].Level
		for i < 0 || !mulGE(uint64(cum), uint64(l.Den), uint64(l.Num), uint64(total)) {
			i++
			cum += pairs[i].w
		}
		s.Percentiles[k].Value = ptr(pairs[i].v)
	}
	return s
}

// weightedVariance returns Σw·(v − mean)²/Σw and its square root over
// sorted pairs, in scaled units so that huge values do not overflow on the
// way; 0 when every value is the same.
func weightedVariance(pairs []weighted, total int64, mean, lo, hi float64) (variance, sd float64) {
	if lo == hi {
		return 0, 0
	}
	e := scaleExp([]float64{lo, hi})
	down, up := math.Ldexp(1, -e), math.Ldexp(1, e)
	m := mean * down
	var sq compensated
	for _, p := range pairs {
		d := p.v*down - m
		sq.add(d * d * float64(p.w))
	}
	scaled := sq.value() / float64(total)
	return scaled * up * up, math.Sqrt(scaled) * up
}

// weightedMean returns Σ(v·w)/Σw over sorted pairs, in scaled units so that
// huge values do not overflow, clamped to [lo, hi].
func weightedMean(pairs []weighted, total int64, lo, hi float64) float64 {
	if lo == hi {
		return lo
	}
	e := scaleExp([]float64{lo, hi})
	down, up := math.Ldexp(1, -e), math.Ldexp(1, e)
	var sum compensated
	for _, p := range pairs {
		sum.add(p.v * down * float64(p.w))
	}
	mean := sum.value() / float64(total) * up
	return min(max(mean, lo), hi)
}
