package window

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// The 1m window read at t0 + 100 s is [40 s, 100 s].
func TestInclusionAtWindowEdges(t *testing.T) {
	tests := []struct {
		name                         string
		r                            req
		counted, ttft, itl, dispatch bool
	}{
		{"ends exactly at the window start", req{start: 39000, first: 39500, firstOut: 39500, last: 39800, end: 40000, output: 4, targeted: 39000},
			true, false, true, false},
		{"ends 1 ms before the window start", req{start: 39000, first: 39500, firstOut: 39500, last: 39800, end: 39999, output: 4, targeted: 39000},
			false, false, false, false},
		{"first token before the window start", req{start: 35000, first: 39900, firstOut: 39900, last: 44000, end: 45000, output: 4, targeted: 35000},
			true, false, true, false},
		{"first token exactly at the window start", req{start: 35000, first: 40000, firstOut: 40000, last: 44000, end: 45000, output: 4, targeted: 35000},
			true, true, true, false},
		{"started exactly at the window start", req{start: 40000, first: 40100, firstOut: 40100, last: 44000, end: 45000, output: 4, targeted: 39000},
			true, true, true, true},
		{"ends exactly now", req{start: 99000, first: 99500, firstOut: 99500, last: 99900, end: 100000, output: 4, targeted: 99000},
			true, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newTestStore(t, Settings{})
			finish(s, tt.r)
			clk.Set(at(100000))
			snap := s.Current(time.Minute)
			if !snap.Start.Equal(at(40000)) {
				t.Fatalf("start %v, want t0 + 40 s", snap.Start)
			}
			for _, c := range []struct {
				what string
				got  int64
				want bool
			}{
				{"requests", snap.Requests.Successful, tt.counted},
				{"latency", snap.Summary(RequestLatency).Successful.Count, tt.counted},
				{"output tokens", snap.Summary(OutputTokens).Successful.Count, tt.counted},
				{"TTFT", snap.Summary(TTFT).Successful.Count, tt.ttft},
				{"TTFOT", snap.Summary(TTFOT).Successful.Count, tt.ttft},
				{"ITL samples", min(snap.Summary(ITL).Successful.Count, 1), tt.itl},
				{"TPOT samples", min(snap.Summary(TPOT).Successful.Count, 1), tt.itl},
				{"dispatch delay", snap.Summary(DispatchDelay).Successful.Count, tt.dispatch},
				{"scheduled latency", snap.Summary(ScheduledLatency).Successful.Count, tt.dispatch},
			} {
				if want := map[bool]int64{true: 1}[c.want]; c.got != want {
					t.Errorf("%s: %d, want %d", c.what, c.got, want)
				}
			}
		})
	}
}

// A warmup of 10 s after the target became ready at t0: measuring begins
// at 10 s, and the same rules exclude what came before it.
func TestWarmupExclusion(t *testing.T) {
	s, clk := newTestStore(t, Settings{Warmup: 10 * time.Second})
	finish(s,
		// Ended during the warmup: in no window.
		req{seq: 0, targeted: 2000, start: 2000, first: 2500, firstOut: 2500, last: 8000, end: 9000, prompt: 7, output: 12},
		// Straddles the measure start with its first token before it:
		// counted, with its ITL, but no TTFT and no dispatch delay.
		req{seq: 1, targeted: 5000, start: 5000, first: 8000, firstOut: 8000, last: 12000, end: 12000, prompt: 10, output: 9},
		// Started in the warmup, first token after it: TTFT counted,
		// dispatch delay not.
		req{seq: 2, targeted: 9000, start: 9000, first: 10500, firstOut: 10500, last: 10500, end: 11000, prompt: 20, output: 1},
	)
	clk.Set(at(40000))
	snap := s.Current(time.Minute)
	// Effective length min(60 s, 40 − 10) = 30 s.
	if !snap.Start.Equal(at(10000)) || snap.Length() != 30*time.Second {
		t.Errorf("bounds start %v length %v, want t0 + 10 s and 30 s", snap.Start, snap.Length())
	}
	if snap.Requests.All != 2 {
		t.Errorf("requests %d, want 2 (seq 1 and 2)", snap.Requests.All)
	}
	// TTFT of seq 2 only: 10.5 − 9 = 1.5 s.
	ttft := snap.Summary(TTFT).All
	if ttft.Count != 1 || val(ttft.Mean) != 1.5 {
		t.Errorf("TTFT count %d mean %v, want 1, 1.5", ttft.Count, val(ttft.Mean))
	}
	if n := snap.Summary(DispatchDelay).All.Count; n != 0 {
		t.Errorf("dispatch delay count %d, want 0", n)
	}
	// ITL of seq 1: (12 − 8)/8 = 0.5 s, weight 8 (seq 2 has one token).
	itl := snap.Summary(ITL).All
	if itl.Count != 8 || val(itl.Mean) != 0.5 {
		t.Errorf("ITL count %d mean %v, want 8, 0.5", itl.Count, val(itl.Mean))
	}
	// Output tokens by event time: seq 1 streams 9 tokens over [8, 12], of
	// which (12 − 10)/(12 − 8) = half fall after 10 s: 4.5; seq 2's 1 token
	// at 10.5: 1. Prompt tokens count at the first token: seq 2's 20 only.
	check(t, "output tokens", snap.OutputTokens.All, 5.5)
	check(t, "prompt tokens", snap.PromptTokens.All, 20)
	check(t, "output token rate", val(snap.OutputTokenRate.All), 5.5/30)
	check(t, "total token rate", val(snap.TotalTokenRate.All), 25.5/30)
	// Busy time inside [10, 40]: seq 1 for 2 s, seq 2 for 1 s.
	check(t, "concurrency", val(snap.Concurrency), 3.0/30)
}

// The effective length is min(W, now − measure start) for each window.
func TestEffectiveLength(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	clk.Set(at(90000))
	for _, c := range []struct {
		w, want time.Duration
	}{{time.Minute, time.Minute}, {5 * time.Minute, 90 * time.Second}, {time.Hour, 90 * time.Second}} {
		if got := s.Current(c.w).Length(); got != c.want {
			t.Errorf("%s window length %v, want %v", Name(c.w), got, c.want)
		}
	}
}

// Requests still running count toward concurrency only.
func TestRunningRequests(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	clk.Set(at(20000))
	s.Started(target) // runs from 20 s on
	clk.Set(at(25000))
	s.Started(target)
	// The request started at 25 s ends at 27 s; the one from 20 s runs on.
	clk.Set(at(27000))
	s.Finished(req{start: 25000, first: 25100, firstOut: 25100, last: 26900, end: 27000, output: 3}.record())
	clk.Set(at(30000))
	snap := s.Current(time.Minute)
	if snap.Requests.All != 1 || snap.InFlight != 1 {
		t.Errorf("requests %d in flight %d, want 1 and 1", snap.Requests.All, snap.InFlight)
	}
	if r := snap.Running(); len(r) != 1 || !r[0].Equal(at(20000)) {
		t.Errorf("running %v, want the one started at 20 s", r)
	}
	// Busy (30 − 20) + (27 − 25) = 12 s over 30 s.
	check(t, "concurrency", val(snap.Concurrency), 12.0/30)
}

// Each status has its own summaries, and all combines them.
func TestStatuses(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	finish(s,
		req{seq: 0, start: 1000, first: 1200, firstOut: 1200, last: 1900, end: 2000, output: 8, prompt: 5},
		// An error after 0.5 s without a token: a latency, no TTFT.
		req{seq: 1, start: 3000, first: -1, firstOut: -1, last: -1, end: 3500, prompt: 5, outcome: probe.Errored},
		// Cancelled at shutdown after a first token: TTFT, no latency.
		req{seq: 2, start: 4000, first: 4300, firstOut: 4300, last: 4300, end: 5000, output: 1, prompt: 5, outcome: probe.Incomplete},
	)
	clk.Set(at(10000))
	snap := s.Current(time.Minute)
	want := map[string][2]int64{ // requests, latency count, TTFT count
		"successful": {1, 1}, "errored": {1, 1}, "incomplete": {1, 0}, "all": {3, 2},
	}
	lat := snap.Summary(RequestLatency)
	ttft := snap.Summary(TTFT)
	got := map[string][2]int64{
		"successful": {snap.Requests.Successful, lat.Successful.Count},
		"errored":    {snap.Requests.Errored, lat.Errored.Count},
		"incomplete": {snap.Requests.Incomplete, lat.Incomplete.Count},
		"all":        {snap.Requests.All, lat.All.Count},
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: requests, latency count = %v, want %v", k, got[k], w)
		}
	}
	check(t, "errored latency", val(lat.Errored.Mean), 0.5)
	check(t, "incomplete TTFT", val(ttft.Incomplete.Mean), 0.3)
	check(t, "all TTFT count", float64(ttft.All.Count), 2)
	check(t, "all latency mean", val(lat.All.Mean), (1.0+0.5)/2)
}

// A non-streamed request has no TTFT; its tokens count at its end.
func TestUnaryRequest(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	finish(s, req{start: 1000, first: -1, firstOut: -1, last: -1, end: 3000, output: 10, prompt: 4, unary: true})
	clk.Set(at(10000))
	snap := s.Current(time.Minute)
	if n := snap.Summary(TTFT).All.Count; n != 0 {
		t.Errorf("TTFT count %d, want 0", n)
	}
	if n := snap.Summary(StreamingIterations).All.Count; n != 0 {
		t.Errorf("iterations count %d, want 0 for a whole response", n)
	}
	// TPOT (end − start)/10 = 0.2 s, weight 10.
	tpot := snap.Summary(TPOT).All
	if tpot.Count != 10 || val(tpot.Mean) != 0.2 {
		t.Errorf("TPOT count %d mean %v, want 10, 0.2", tpot.Count, val(tpot.Mean))
	}
	check(t, "output tokens", snap.OutputTokens.All, 10)
	check(t, "prompt tokens", snap.PromptTokens.All, 4)
}
