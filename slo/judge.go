package slo

import (
	"math"

	"github.com/llmprober/llmprober/slo/stats"
)

// Judgement is the three-way verdict on an objective set over a window or a
// finite run: whether the attainment interval clears the target
// attainment. The zero value is Inconclusive.
type Judgement int

// The judgements.
const (
	// Inconclusive: the interval straddles the target (too few requests to
	// tell), no request was evaluated, or there is no interval.
	Inconclusive Judgement = iota
	// Met: the interval's lower bound is at or above the target.
	Met
	// Breached: the interval's upper bound is below the target.
	Breached
)

// Judgements lists every judgement in the order of their labels: met,
// breached, inconclusive.
var Judgements = []Judgement{Met, Breached, Inconclusive}

// String returns "met", "breached" or "inconclusive", the value of the
// verdict label and of the JSON field.
func (j Judgement) String() string {
	switch j {
	case Met:
		return "met"
	case Breached:
		return "breached"
	}
	return "inconclusive"
}

// Judge returns the verdict on conforming of evaluated requests against the
// target attainment in (0, 1), from the Wilson interval at confidence in
// (0, 1): Met when its lower bound ≥ target, Breached when its upper bound
// < target, Inconclusive otherwise. It is Inconclusive when evaluated is 0,
// and when confidence is 0 (intervals off) or otherwise outside (0, 1): a
// point attainment below target says nothing about the next requests, so
// without an interval no verdict is given. 19 conforming of 20 against 0.99
// at 0.95 is Inconclusive (interval [0.7639, 0.9911]), not Breached.
func Judge(conforming, evaluated int64, target, confidence float64) Judgement {
	lo, hi, ok := stats.Wilson(conforming, evaluated, confidence)
	if !ok {
		return Inconclusive
	}
	return JudgeInterval(stats.Interval{Lo: lo, Hi: hi}, target)
}

// JudgeInterval returns the verdict of an attainment interval [Lo, Hi]
// against the target attainment: Met when Lo ≥ target, Breached when
// Hi < target, Inconclusive otherwise and for a NaN bound or target.
func JudgeInterval(ci stats.Interval, target float64) Judgement {
	switch {
	case math.IsNaN(ci.Lo) || math.IsNaN(ci.Hi) || math.IsNaN(target):
		return Inconclusive
	case ci.Lo >= target:
		return Met
	case ci.Hi < target:
		return Breached
	}
	return Inconclusive
}

// maxResolve bounds RequestsToResolve's search.
const maxResolve = int64(1) << 40

// RequestsToResolve returns the fewest evaluated requests, at least
// evaluated, at which the observed attainment p̂ = conforming ÷ evaluated
// would give a Met or Breached verdict against target at confidence: the
// smallest n whose Wilson interval of the proportion p̂ of n trials
// (stats.WilsonProportion, which narrows as n grows) lies wholly on one
// side of the target. 19 of 20 against 0.99 at 0.95 needs 24 requests
// (0.95 of 24: [0.7859, 0.98993], breached; of 23: upper bound 0.99022). ok is false when nothing was
// evaluated, intervals are off, p̂ equals the target (no sample size
// resolves it) or more than 2⁴⁰ requests would be needed.
func RequestsToResolve(conforming, evaluated int64, target, confidence float64) (n int64, ok bool) {
	if evaluated <= 0 || conforming < 0 || conforming > evaluated || !(confidence > 0 && confidence < 1) {
		return 0, false
	}
	p := float64(conforming) / float64(evaluated)
	if p == target || math.IsNaN(target) {
		return 0, false
	}
	resolved := func(n int64) bool {
		lo, hi, _ := stats.WilsonProportion(p, n, confidence)
		return JudgeInterval(stats.Interval{Lo: lo, Hi: hi}, target) != Inconclusive
	}
	if resolved(evaluated) {
		return evaluated, true
	}
	lo, hi := evaluated, 2*evaluated
	for !resolved(hi) {
		if hi > maxResolve {
			return 0, false
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if resolved(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}
