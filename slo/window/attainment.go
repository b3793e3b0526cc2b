package window

import (
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/stats"
)

// MaxObjectives bounds Settings.Objectives: an entry keeps each request's
// verdicts in two 8-bit masks.
const MaxObjectives = 8

// Attainment is one objective set's conformance in a window. Requests
// count by their end, like Snapshot.Requests, and the counts are exact
// also when the window is Approximate.
type Attainment struct {
	// Objective is the objective set's name.
	Objective string
	// Target is the set's attainment target, in (0, 1).
	Target float64
	// Evaluated counts the requests that ended in the window and were
	// conforming or non-conforming (not excluded); Conforming those that
	// were conforming.
	Evaluated, Conforming int64
	// Ratio is Conforming ÷ Evaluated; nil when Evaluated is 0.
	Ratio *float64
	// CI is the Wilson score interval of Ratio at the window's confidence;
	// nil when Evaluated is 0 or intervals are off.
	CI *stats.Interval
	// Verdict is slo.Judge's call on the window: Met when CI's lower bound
	// ≥ Target, Breached when its upper bound < Target, Inconclusive
	// otherwise, without evaluated requests and when intervals are off.
	Verdict slo.Judgement
	// ConformingOutputTokens sums the known output tokens of the
	// conforming requests.
	ConformingOutputTokens int64
	// Goodput is Conforming ÷ the effective length, in requests per
	// second, never above RequestRate.All; nil when the window has no
	// length yet.
	Goodput *float64
	// OutputTokenGoodput is ConformingOutputTokens ÷ the effective length,
	// in tokens per second; nil when the window has no length yet.
	OutputTokenGoodput *float64
}

// sloCount counts one objective set's verdicts of the records that ended
// in a bucket (or a window).
type sloCount struct {
	evaluated, conforming, conformingOutput int64
}

// verdicts returns the masks of the objective sets that evaluated rec and
// of those it conformed to: bit i for objective i.
func verdicts(objectives []slo.Objective, rec *probe.Record) (evaluated, conforming uint8) {
	for i := range objectives {
		switch objectives[i].Evaluate(rec).Verdict {
		case slo.Conforming:
			evaluated |= 1 << i
			conforming |= 1 << i
		case slo.NonConforming:
			evaluated |= 1 << i
		}
	}
	return evaluated, conforming
}

// countSLO adds e's verdicts to counts, one per objective set.
func countSLO(counts []sloCount, e *entry) {
	output, _ := e.tokens()
	for i := range counts {
		if e.evaluated&(1<<i) == 0 {
			continue
		}
		counts[i].evaluated++
		if e.conforming&(1<<i) != 0 {
			counts[i].conforming++
			counts[i].conformingOutput += output
		}
	}
}

// attainments returns the figures of each objective set from its counts
// over a window of the given bounds (seconds).
func attainments(objectives []slo.Objective, counts []sloCount, win stats.Window, confidence float64) []Attainment {
	out := make([]Attainment, len(objectives))
	for i := range objectives {
		a := Attainment{Objective: objectives[i].Name, Target: objectives[i].Attainment}
		if i < len(counts) {
			c := counts[i]
			a.Evaluated, a.Conforming, a.ConformingOutputTokens = c.evaluated, c.conforming, c.conformingOutput
		}
		if a.Evaluated > 0 {
			r := float64(a.Conforming) / float64(a.Evaluated)
			a.Ratio = &r
			if lo, hi, ok := stats.Wilson(a.Conforming, a.Evaluated, confidence); ok && confidence > 0 {
				a.CI = &stats.Interval{Lo: lo, Hi: hi}
				a.Verdict = slo.JudgeInterval(*a.CI, a.Target)
			}
		}
		if r, ok := stats.Rate(float64(a.Conforming), win); ok {
			a.Goodput = &r
		}
		if r, ok := stats.Rate(float64(a.ConformingOutputTokens), win); ok {
			a.OutputTokenGoodput = &r
		}
		out[i] = a
	}
	return out
}
