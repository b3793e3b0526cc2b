package window

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// wildRecord returns a record with each instant absent one time in
// four, else within ±1 h of origin, with random counts, outcome, stream
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
	if rng.IntN(3) == 0 {
		for range 1 + rng.IntN(3) {
			r.Sent.Add(at())
		}
		for range rng.IntN(3) {
			r.Received.Add(at())
		}
	}
	return r
}

// TestEntryValuesAsRecord holds entry.values to probe's definitions, as
// values computes them from the record an entry rebuilds, over random
// records (those of the index's tests and wild ones, any instant absent or
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
