package window

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// wsRecord is a realtime WebSocket request: packets sent at start + 0, 0.1,
// 0.2 s, tokens received at start + 0.3, 0.4, 0.5 s (time to last round
// trip and average RTT 0.3 s), or with extra shifting the tokens later.
func wsRecord(seq uint64, startMs, extraMs int64) *probe.Record {
	rec := req{seq: seq, start: startMs, first: startMs + 300 + extraMs, firstOut: startMs + 300 + extraMs,
		last: startMs + 500 + extraMs, end: startMs + 500 + extraMs, prompt: 30, output: 3, targeted: -1}.record()
	rec.Sent = probe.InstantsOf(at(startMs), at(startMs+100), at(startMs+200))
	rec.Received = received(startMs, extraMs, 0)
	return rec
}

// received is wsRecord's token receive times, the first jitter ns late.
func received(startMs, extraMs int64, jitter time.Duration) probe.Instants {
	return probe.InstantsOf(at(startMs+300+extraMs).Add(jitter), at(startMs+400+extraMs), at(startMs+500+extraMs))
}

// TestRoundTripSummaries checks the round-trip summaries of a window with
// two WebSocket requests (0.3 s and 0.5 s both) and an HTTP request, which
// has none: count 2, mean 0.4, and absent, not zero, for the HTTP request.
func TestRoundTripSummaries(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	s.Started(target)
	s.Finished(wsRecord(0, 1000, 0))
	s.Started(target)
	s.Finished(wsRecord(1, 2000, 200))
	finish(s, twoRequests[0])
	clk.Set(at(30000))
	snap := s.Current(time.Minute)
	for _, m := range []Metric{TimeToLastRoundTrip, AverageRTT} {
		sum := snap.Summary(m).Successful
		if sum.Count != 2 || !near(val(sum.Mean), 0.4) || !near(val(sum.Min), 0.3) || !near(val(sum.Max), 0.5) {
			t.Errorf("%s: count %d mean %v min %v max %v; want 2, 0.4, 0.3, 0.5", m, sum.Count, val(sum.Mean), val(sum.Min), val(sum.Max))
		}
	}
	var ws, http int
	for _, r := range snap.Records() {
		_, _, ok := r.Value(AverageRTT)
		switch {
		case ok && r.Included(TimeToLastRoundTrip):
			ws++
		case !ok:
			http++
		}
	}
	if ws != 2 || http != 1 {
		t.Errorf("%d records with round trips, %d without; want 2 and 1", ws, http)
	}
}

// TestRoundTripEntry checks that an entry keeps both round-trip metrics
// exactly, so an evicted record folds the same values into the aggregates.
func TestRoundTripEntry(t *testing.T) {
	rec := wsRecord(0, 1000, 123)
	rec.Received = received(1000, 123, 7) // an uneven mean
	e := newEntry(rec, t0, rec.End)
	back := e.record(t0)
	for name, f := range map[string]func(*probe.Record) (time.Duration, bool){
		"time to last round trip": (*probe.Record).TimeToLastRoundTrip, "average RTT": (*probe.Record).AverageRTT,
	} {
		want, _ := f(rec)
		if got, ok := f(&back); !ok || got != want {
			t.Errorf("%s: %v (defined %v) after the entry, want %v", name, got, ok, want)
		}
	}
	http := newEntry(req{start: 0, end: 100}.record(), t0, at(100))
	if r := http.record(t0); r.Sent.Len() != 0 || r.Received.Len() != 0 {
		t.Errorf("an HTTP entry has round trips: %d sent, %d received", r.Sent.Len(), r.Received.Len())
	}
}
