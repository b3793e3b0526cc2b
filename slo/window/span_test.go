package window

import (
	"slices"
	"testing"
	"time"
)

// spanRequests are requests around the measurement window [10 s, 40 s] of
// a run read at 50 s (a cooldown of 10 s), in ms from t0; each is targeted
// 100 ms before it starts.
var spanRequests = []req{
	// Ended before the window: left out.
	{seq: 0, targeted: 900, start: 1000, first: 2000, firstOut: 2000, last: 8000, end: 9000, prompt: 1, output: 3},
	// Straddles the window start, its first token before it: counted with
	// its ITL, without TTFT or dispatch delay; output tokens over [8, 12],
	// half inside (2.5), prompt at 8 s outside.
	{seq: 1, targeted: 4900, start: 5000, first: 8000, firstOut: 8000, last: 12000, end: 12000, prompt: 10, output: 5},
	// Wholly inside.
	{seq: 2, targeted: 19900, start: 20000, first: 21000, firstOut: 21000, last: 25000, end: 26000, prompt: 2, output: 5},
	// Ended in the cooldown, first token inside: everything counts; output
	// over [38, 44], a third inside (7/3), prompt at 38 s inside.
	{seq: 3, targeted: 34900, start: 35000, first: 38000, firstOut: 38000, last: 44000, end: 45000, prompt: 3, output: 7},
	// Started inside, first token in the cooldown: counted, its TTFT
	// (request start..first token overlaps the window) and dispatch delay
	// too, not its ITL (first token..end lies after it) nor its tokens.
	{seq: 4, targeted: 38900, start: 39000, first: 41000, firstOut: 41000, last: 46000, end: 47000, prompt: 4, output: 6},
	// Started in the cooldown: left out.
	{seq: 5, targeted: 41900, start: 42000, first: 43000, firstOut: 43000, last: 47000, end: 48000, prompt: 5, output: 5},
}

// The window [10 s, 40 s] read at 50 s counts requests by lifetime overlap
// and events by event time.
func TestSnapshotSpanCooldown(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Minute}})
	finish(s, spanRequests...)
	clk.Set(at(50000))
	snap := s.SnapshotSpan(at(10000), at(40000), at(50000))
	if !snap.Start.Equal(at(10000)) || !snap.End.Equal(at(40000)) || snap.Window != time.Minute {
		t.Fatalf("bounds [%v, %v] window %v, want [t0 + 10 s, t0 + 40 s] of 1m", snap.Start, snap.End, snap.Window)
	}
	for _, c := range []struct {
		what      string
		got, want int64
	}{
		{"requests", snap.Requests.Successful, 4},
		{"request latency", snap.Summary(RequestLatency).Successful.Count, 4},
		{"output token counts", snap.Summary(OutputTokens).Successful.Count, 4},
		{"TTFT", snap.Summary(TTFT).Successful.Count, 3},
		{"TTFOT", snap.Summary(TTFOT).Successful.Count, 3},
		// Token weights: output tokens − 1 of seq 1, 2, 3.
		{"ITL weight", snap.Summary(ITL).Successful.Count, 4 + 4 + 6},
		{"TPOT weight", snap.Summary(TPOT).Successful.Count, 5 + 5 + 7},
		{"dispatch delay", snap.Summary(DispatchDelay).Successful.Count, 3},
		{"scheduled latency", snap.Summary(ScheduledLatency).Successful.Count, 3},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.what, c.got, c.want)
		}
	}
	// Latencies 7, 6, 10, 8 s: mean 7.75 s. TTFT 1, 3, 2 s.
	check(t, "latency mean", val(snap.Summary(RequestLatency).Successful.Mean), 7.75)
	check(t, "TTFT max", val(snap.Summary(TTFT).Successful.Max), 3)
	check(t, "TTFT min", val(snap.Summary(TTFT).Successful.Min), 1)
	check(t, "output tokens", snap.OutputTokens.Successful, 2.5+5+7.0/3)
	check(t, "prompt tokens", snap.PromptTokens.Successful, 2+3)
	check(t, "request rate", val(snap.RequestRate.Successful), 4.0/30)
	// In flight inside the window: seq 1 [10, 12], 2 [20, 26], 3 [35, 40],
	// 4 [39, 40]: 14 s over 30 s.
	check(t, "concurrency", val(snap.Concurrency), 14.0/30)

	// 10 s intervals: requests end at 12, 26, (45, 47 →) 40 s; in flight
	// 2, 6, 5 + 1 s; output tokens 2.5, 5, 7/3 and prompt 0, 2, 3.
	rs, ok := snap.RateSeries(3)
	if !ok {
		t.Fatal("no rate series")
	}
	for i, want := range [][4]float64{{0.1, 0.25, 0.25, 0.2}, {0.1, 0.5, 0.7, 0.6}, {0.2, 0.7 / 3, 0.7/3 + 0.3, 0.6}} {
		check(t, "requests/s", rs.Requests[i], want[0])
		check(t, "output tokens/s", rs.OutputTokens[i], want[1])
		check(t, "total tokens/s", rs.TotalTokens[i], want[2])
		check(t, "concurrency", rs.Concurrency[i], want[3])
	}

	var seqs []uint64
	for _, r := range snap.Records() {
		seqs = append(seqs, r.Request.Seq)
		if r.Request.Seq == 4 && (!r.Included(TTFT) || r.Included(ITL) || !r.Included(DispatchDelay) || !r.Included(RequestLatency)) {
			t.Errorf("seq 4: TTFT %v ITL %v dispatch %v latency %v, want true false true true",
				r.Included(TTFT), r.Included(ITL), r.Included(DispatchDelay), r.Included(RequestLatency))
		}
		if r.Request.Seq == 1 && (r.Included(TTFT) || !r.Included(ITL)) {
			t.Errorf("seq 1: TTFT %v ITL %v, want false true", r.Included(TTFT), r.Included(ITL))
		}
	}
	if !slices.Equal(seqs, []uint64{1, 2, 3, 4}) {
		t.Errorf("records %v, want 1 2 3 4", seqs)
	}
}

// A span ending at the instant read is the rolling window: the same
// figures as the 1m window's.
func TestSnapshotSpanAtNowIsRolling(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Minute}})
	finish(s, spanRequests...)
	clk.Set(at(50000))
	span, roll := s.SnapshotSpan(at(-5000), at(50000), at(50000)), s.Current(time.Minute)
	if !span.Start.Equal(roll.Start) || !span.End.Equal(roll.End) || span.Requests != roll.Requests {
		t.Fatalf("span [%v, %v] %v, rolling [%v, %v] %v", span.Start, span.End, span.Requests, roll.Start, roll.End, roll.Requests)
	}
	for m := range numMetrics {
		if a, b := span.Summary(Metric(m)).All, roll.Summary(Metric(m)).All; a.Count != b.Count || !near(val(a.Mean), val(b.Mean)) && a.Count > 0 {
			t.Errorf("%v: span %d %v, rolling %d %v", Metric(m), a.Count, val(a.Mean), b.Count, val(b.Mean))
		}
	}
	if val(span.Concurrency) != val(roll.Concurrency) || span.OutputTokens != roll.OutputTokens {
		t.Errorf("concurrency %v tokens %v, rolling %v %v", val(span.Concurrency), span.OutputTokens, val(roll.Concurrency), roll.OutputTokens)
	}
}

// A span that ends before the measure start measured nothing.
func TestSnapshotSpanBeforeMeasuring(t *testing.T) {
	s, clk := newTestStore(t, Settings{Warmup: 10 * time.Second})
	finish(s, spanRequests...)
	clk.Set(at(50000))
	if snap := s.SnapshotSpan(at(0), at(5000), at(50000)); snap.Measuring || snap.Requests.All != 0 {
		t.Errorf("measuring %v requests %d, want false 0", snap.Measuring, snap.Requests.All)
	}
}
