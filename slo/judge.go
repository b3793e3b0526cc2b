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
