package window

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// wildRecord returns a record with each instant absent one time in
// four, else within ±1 h of origin (its WebSocket packets' too, never
// absent), with random counts, outcome, stream
// flag and, one time in three, WebSocket packets.
func wildRecord(rng *rand.Rand, origin time.Time) *probe.Record {
	at := func() time.Time {
		if rng.IntN(4) == 0 {
			return time.Time{}
		}
		return origin.Add(time.Duration(rng.Int64N(int64(2*time.Hour))) - time.Hour)
	}
	r := &probe.Record{
		Seq: rng.Uint64(), Stream: rng.IntN(2) == 0, TargetedStart: at(), RequestStart: at(),
		FirstToken: at(), FirstOutputToken: at(), LastToken: at(), End: at(),
		PromptTokens: rng.IntN(5) - 1, OutputTokens: rng.IntN(5) - 1, Iterations: rng.IntN(4),
		PromptTokensFrom: tokenSources[rng.IntN(len(tokenSources))], OutputTokensFrom: tokenSources[rng.IntN(len(tokenSources))],
		Outcome: probe.Outcomes[rng.IntN(len(probe.Outcomes))], OutputSeen: rng.IntN(2) == 0,
	}
	if rng.IntN(3) == 0 { // packets are sent and received at instants that happened
		sometime := func() time.Time { return origin.Add(time.Duration(rng.Int64N(int64(2*time.Hour))) - time.Hour) }
		for range 1 + rng.IntN(3) {
			r.Sent.Add(sometime())
		}
		for range rng.IntN(3) {
			r.Received.Add(sometime())
		}
	}
	return r
}

// TestEntryValuesAsRecord holds entry.values to probe's definitions, as
// values computes them from the record an entry rebuilds and from the
// record the entry was made of (what it keeps must be all they need), over
// random records (those of the index's tests and wild ones, any instant absent or
// out of order): every quantity defined alike, with the same value and
// weight to the bit.
func TestEntryValuesAsRecord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	origin := time.Now()
	for i := range 200000 {
		rec := wildRecord(rng, origin)
		if i%2 == 0 {
			rec = randomRecord(rng, uint64(i), origin.Add(time.Duration(rng.IntN(3600))*time.Second))
		}
		end := rec.End
		if end.IsZero() {
			end = origin
		}
		e := newEntry(rec, origin, end)
		back := e.record(origin)
		wantV, wantOK := values(&back)
		gotV, gotOK := e.values()
		if gotV != wantV || gotOK != wantOK {
			t.Fatalf("record %d %+v:\nentry.values %v %v\nvalues       %v %v", i, rec, gotV, gotOK, wantV, wantOK)
		}
		if rec.End.IsZero() { // the entry ends at the end it was given
			continue
		}
		if wantV, wantOK = values(rec); gotV != wantV || gotOK != wantOK {
			t.Fatalf("record %d %+v:\nentry.values    %v %v\nvalues (record) %v %v", i, rec, gotV, gotOK, wantV, wantOK)
		}
	}
}

// BenchmarkEntryValues measures the quantities of one kept streamed
// request, as indexing a bucket computes them, from its entry and from
// the record it rebuilds.
func BenchmarkEntryValues(b *testing.B) {
	origin := time.Now()
	e := newEntry(realistic(rand.New(rand.NewPCG(1, 2)), 1, origin.Add(time.Minute)), origin, origin.Add(time.Minute))
	b.Run("entry", func(b *testing.B) {
		for b.Loop() {
			vs, _ := e.values()
			sink = vs[ITL].v
		}
	})
	b.Run("record", func(b *testing.B) {
		for b.Loop() {
			rec := e.record(origin)
			vs, _ := values(&rec)
			sink = vs[ITL].v
		}
	})
}

var sink float64

// TestWholeResponseTPOT: a response that was not streamed but carried
// output has a TPOT in the windows, (end − request start) ÷ output tokens
// as probe defines it: 500 ms ÷ 10 tokens = 50 ms, weighted 10; one
// without output has none.
func TestWholeResponseTPOT(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Minute}})
	start := t0.Add(time.Second)
	for i, seen := range []bool{true, false} {
		s.Started(target)
		s.Finished(&probe.Record{Target: target, Seq: uint64(i), RequestStart: start, End: start.Add(500 * time.Millisecond),
			OutputTokens: 10, OutputTokensFrom: probe.TokensFromUsage, OutputSeen: seen, Outcome: probe.Successful})
	}
	clk.Set(start.Add(time.Second))
	tpot := s.Current(time.Minute).Summary(TPOT).Successful
	if tpot.Count != 10 || tpot.Mean == nil || *tpot.Mean != 0.05 {
		t.Errorf("TPOT count %d mean %v, want 10 (one request's tokens) and 0.05 s", tpot.Count, tpot.Mean)
	}
}
