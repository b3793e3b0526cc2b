package window

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// alike makes rec's TTFOT its TTFT and, when streamed with known output
// tokens, its iterations its output tokens.
func alike(rec *probe.Record) {
	rec.FirstOutputToken = rec.FirstToken
	if rec.Stream && rec.OutputTokensFrom == probe.TokensUnknown {
		rec.OutputTokensFrom = probe.TokensCounted
	}
	if !rec.Stream {
		rec.OutputTokensFrom = probe.TokensUnknown
	}
	rec.Iterations = rec.OutputTokens
}

// TestAliases checks the summaries a snapshot copies: with every record
// held alike (TTFOT = TTFT, streaming iterations = output tokens) the
// copies of TTFT and of output tokens, checked against the records as any
// summary is, exact and sampled; once one record differs in a pair, that
// pair's summaries computed apart (they differ), the other pair's still
// copied, until the record leaves the ring.
func TestAliases(t *testing.T) {
	for _, cap := range []int{DefaultSampleCap, Buckets} {
		t.Run(fmt.Sprintf("cap=%d", cap), func(t *testing.T) {
			s, clk := newTestStore(t, Settings{Windows: []time.Duration{20 * time.Second, time.Minute}, SampleCap: cap, Seed: 1})
			rng := rand.New(rand.NewPCG(7, 8))
			now := t0
			feed := func(n int, change func(*probe.Record)) {
				for i := range n {
					rec := randomRecord(rng, uint64(i), now.Add(-time.Duration(rng.IntN(2000))*time.Millisecond))
					alike(rec)
					change(rec)
					s.Started(target)
					s.Finished(rec)
				}
				now = now.Add(3 * time.Second)
				clk.Set(now)
			}
			check := func(what string, ttfot, iterations bool) {
				t.Helper()
				for _, snap := range s.Snapshots(now) {
					checkRecomputed(t, what, snap)
					for _, c := range []struct {
						m, of Metric
						same  bool
					}{{TTFOT, TTFT, ttfot}, {StreamingIterations, OutputTokens, iterations}} {
						a, b := snap.Summary(c.m), snap.Summary(c.of)
						if same := reflect.DeepEqual(a, b); same != c.same {
							t.Errorf("%s, %s: %s the same as %s: %v, want %v", what, snap.Name(), c.m, c.of, same, c.same)
						}
					}
				}
			}
			for range 25 {
				feed(200, func(*probe.Record) {})
			}
			check("all alike", true, true)
			feed(1, func(r *probe.Record) {
				r.Stream, r.OutputTokens, r.OutputTokensFrom = true, 5, probe.TokensFromUsage
				r.FirstToken = r.RequestStart.Add(time.Millisecond)
				r.FirstOutputToken, r.LastToken, r.Iterations = r.FirstToken.Add(time.Millisecond), r.FirstToken.Add(2*time.Millisecond), 3
			})
			check("one differs in both", false, false)
			for range 25 {
				feed(200, func(*probe.Record) {})
			}
			check("the one that differs gone", true, true)
		})
	}
}
