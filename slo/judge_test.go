package slo

import (
	"math"
	"testing"

	"github.com/llmprober/llmprober/slo/stats"
)

// TestJudge checks the verdict at the edges of the Wilson interval at 0.95
// (z = 1.959964). With every request conforming the lower bound is
// n/(n + z²), so against 0.99 it takes n ≥ 99·z² = 380.3: 380 of 380 gives
// 0.989992 (inconclusive), 381 of 381 gives 0.990018 (met). With none
// conforming the upper bound is z²/(n + z²): against 0.5, 3 requests give
// 0.5615 (inconclusive), 4 give 0.4899 (breached). 19 of 20 (point 0.95)
// against 0.99 is [0.7639, 0.9911]: inconclusive, not breached.
func TestJudge(t *testing.T) {
	tests := []struct {
		name                  string
		conforming, evaluated int64
		target, confidence    float64
		want                  Judgement
	}{
		{"19 of 20 below 0.99 is not a breach", 19, 20, 0.99, 0.95, Inconclusive},
		{"19 of 20 against 0.95 (point on target)", 19, 20, 0.95, 0.95, Inconclusive},
		{"19 of 20 against 0.76: lower bound 0.7639 clears it", 19, 20, 0.76, 0.95, Met},
		{"19 of 20 against 0.992: upper bound 0.9911 is below", 19, 20, 0.992, 0.95, Breached},
		{"380 of 380: lower bound 0.989992 < 0.99", 380, 380, 0.99, 0.95, Inconclusive},
		{"381 of 381: lower bound 0.990018 ≥ 0.99", 381, 381, 0.99, 0.95, Met},
		{"0 of 3: upper bound 0.5615 ≥ 0.5", 0, 3, 0.5, 0.95, Inconclusive},
		{"0 of 4: upper bound 0.4899 < 0.5", 0, 4, 0.5, 0.95, Breached},
		{"9800 of 10000 against 0.99: [0.9771, 0.9826]", 9800, 10000, 0.99, 0.95, Breached},
		{"9940 of 10000 against 0.99: [0.9923, 0.9953]", 9940, 10000, 0.99, 0.95, Met},
		{"990 of 1000 against 0.99: [0.9817, 0.9946]", 990, 1000, 0.99, 0.95, Inconclusive},
		{"nothing evaluated", 0, 0, 0.99, 0.95, Inconclusive},
		{"intervals off: no verdict even at 0 of 10000", 0, 10000, 0.99, 0, Inconclusive},
		{"intervals off: no verdict at 10000 of 10000", 10000, 10000, 0.99, 0, Inconclusive},
		{"confidence 1 is not an interval", 10000, 10000, 0.5, 1, Inconclusive},
		{"more conforming than evaluated", 5, 4, 0.5, 0.95, Inconclusive},
		{"NaN target", 10, 10, math.NaN(), 0.95, Inconclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Judge(tt.conforming, tt.evaluated, tt.target, tt.confidence); got != tt.want {
				t.Errorf("Judge(%d, %d, %v, %v) = %v, want %v", tt.conforming, tt.evaluated, tt.target, tt.confidence, got, tt.want)
			}
		})
	}
}

// TestJudgeIntervalBounds: the lower bound at the target is met (≥), the
// upper bound at the target is not breached (<).
func TestJudgeIntervalBounds(t *testing.T) {
	for _, tc := range []struct {
		ci   stats.Interval
		want Judgement
	}{
		{stats.Interval{Lo: 0.99, Hi: 1}, Met},
		{stats.Interval{Lo: 0.9, Hi: 0.99}, Inconclusive},
		{stats.Interval{Lo: 0.9, Hi: math.Nextafter(0.99, 0)}, Breached},
		{stats.Interval{Lo: math.NaN(), Hi: 1}, Inconclusive},
	} {
		if got := JudgeInterval(tc.ci, 0.99); got != tc.want {
			t.Errorf("JudgeInterval(%+v, 0.99) = %v, want %v", tc.ci, got, tc.want)
		}
	}
}

func TestJudgementStrings(t *testing.T) {
	var got []string
	for _, j := range Judgements {
		got = append(got, j.String())
	}
	if len(got) != 3 || got[0] != "met" || got[1] != "breached" || got[2] != "inconclusive" || Judgement(0) != Inconclusive {
		t.Errorf("Judgements = %v; want [met breached inconclusive], zero value inconclusive", got)
	}
}

// TestRequestsToResolve: Wilson at 0.95 of a proportion p̂ of n trials.
// 0.95 of 23 reaches 0.99022, of 24 0.98993 < 0.99; 1 of 1 (every request
// conforming) needs n/(n + z²) ≥ 0.99, n = 381; 0.5 against 0.6 needs the
// half-width z/(2√(n + z²))·… below 0.1: 92 gives [0.39990, 0.60010], 93
// [0.40042, 0.59958]; 8 of 10 against 0.99 is breached already.
func TestRequestsToResolve(t *testing.T) {
	tests := []struct {
		name                  string
		conforming, evaluated int64
		target, confidence    float64
		want                  int64
		ok                    bool
	}{
		{"19 of 20 against 0.99", 19, 20, 0.99, 0.95, 24, true},
		{"20 of 20 against 0.99", 20, 20, 0.99, 0.95, 381, true},
		{"5 of 10 against 0.6", 5, 10, 0.6, 0.95, 93, true},
		{"resolved already", 8, 10, 0.99, 0.95, 10, true},
		{"on the target", 99, 100, 0.99, 0.95, 0, false},
		{"nothing evaluated", 0, 0, 0.99, 0.95, 0, false},
		{"intervals off", 19, 20, 0.99, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := RequestsToResolve(tt.conforming, tt.evaluated, tt.target, tt.confidence)
			if n != tt.want || ok != tt.ok {
				t.Errorf("RequestsToResolve = %d, %v; want %d, %v", n, ok, tt.want, tt.ok)
			}
			if ok && Judge(tt.conforming, tt.evaluated, tt.target, tt.confidence) != Inconclusive && n != tt.evaluated {
				t.Errorf("a resolved verdict needs no more requests, got %d", n)
			}
		})
	}
}
