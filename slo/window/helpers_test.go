package window

import (
	"math"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo/stats"
)

// t0 is the fake clock's start, when the tests' targets become ready.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns t0 + ms milliseconds.
func at(ms int64) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

const target = "t"

// newTestStore returns a store whose target became ready at t0, on a fake
// clock reading t0, without a cache unless s sets one.
func newTestStore(t testing.TB, s Settings) (*Store, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(t0)
	s.Clock = clk
	if s.CacheTTL == 0 {
		s.CacheTTL = -1
	}
	if s.Confidence == 0 {
		s.Confidence = DefaultConfidence
	}
	st, err := NewStore(target, s)
	if err != nil {
		t.Fatal(err)
	}
	st.State(target, probe.StateReady, 0)
	return st, clk
}

// req describes a request in milliseconds from t0; -1 means absent.
type req struct {
	seq                                         uint64
	targeted, start, first, firstOut, last, end int64
	prompt, output                              int
	outcome                                     probe.Outcome
	unary                                       bool
}

// record builds the probe.Record of r: streamed unless unary, successful
// unless said otherwise, tokens from usage, iterations = output tokens.
func (r req) record() *probe.Record {
	ms := func(v int64) time.Time {
		if v < 0 {
			return time.Time{}
		}
		return at(v)
	}
	rec := &probe.Record{
		Target: target, Seq: r.seq, Stream: !r.unary,
		TargetedStart: ms(r.targeted), RequestStart: ms(r.start), FirstToken: ms(r.first),
		FirstOutputToken: ms(r.firstOut), LastToken: ms(r.last), End: ms(r.end),
		PromptTokens: r.prompt, PromptTokensFrom: probe.TokensFromUsage,
		OutputTokens: r.output, OutputTokensFrom: probe.TokensFromUsage, Iterations: r.output, OutputSeen: r.output > 0,
		Outcome: r.outcome,
	}
	if rec.Outcome == "" {
		rec.Outcome = probe.Successful
	}
	if rec.Outcome != probe.Successful {
		rec.ErrorType = probe.ErrorHTTP5xx
	}
	return rec
}

// finish records each request as started and finished.
func finish(s *Store, reqs ...req) {
	for _, r := range reqs {
		s.Started(target)
		s.Finished(r.record())
	}
}

// near reports whether a and b agree to 1e-9 relative (exactly for 0).
func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// val dereferences a figure, NaN when absent.
func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// check compares a named figure with its expected value.
func check(t *testing.T, name string, got, want float64) {
	t.Helper()
	if !(near(got, want) || (math.IsNaN(got) && math.IsNaN(want))) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// pct returns the value of level l in s, NaN when absent.
func pct(s Summary, l stats.Level) float64 {
	v, ok := s.Percentile(l)
	if !ok {
		return math.NaN()
	}
	return v
}

// newFakeAt returns a fake clock reading t.
func newFakeAt(t time.Time) *clock.Fake { return clock.NewFake(t) }
