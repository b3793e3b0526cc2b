package window

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
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

// TestAliases checks the summaries a snapshot reuses: with every record
// held alike (TTFOT = TTFT, streaming iterations = output tokens) those of
// TTFT and of output tokens, checked against the records as any summary
// is, exact and sampled; with the errored records' iterations unlike their
// output tokens (a streamed error without a usage report), iterations'
// successful and incomplete summaries still output tokens', the errored
// and overall ones computed apart; once one successful record differs in a
// pair, that pair's summaries computed apart (they differ), until the
// record leaves the ring.
func TestAliases(t *testing.T) {
	type same struct{ ttfot, iterations [numStatuses + 1]bool } // by status, then all
	yes := [numStatuses + 1]bool{true, true, true, true}
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
			check := func(what string, want same) {
				t.Helper()
				for _, snap := range s.Snapshots(now) {
					checkRecomputed(t, what, snap)
					for _, c := range []struct {
						m, of Metric
						same  [numStatuses + 1]bool
					}{{TTFOT, TTFT, want.ttfot}, {StreamingIterations, OutputTokens, want.iterations}} {
						a, b := snap.Summary(c.m), snap.Summary(c.of)
						for st := range numStatuses + 1 {
							x, y := &a.All, &b.All
							if st < numStatuses {
								x, y = a.Of(stats.Status(st)), b.Of(stats.Status(st))
							}
							if same := reflect.DeepEqual(x, y); same != c.same[st] && x.Count > 0 {
								t.Errorf("%s, %s: %s the same as %s for status %d: %v, want %v", what, snap.Name(), c.m, c.of, st, same, c.same[st])
							}
						}
					}
				}
			}
			for range 25 {
				feed(200, func(*probe.Record) {})
			}
			check("all alike", same{yes, yes})
			streamedErrors := func(r *probe.Record) {
				if r.Outcome == probe.Errored {
					r.Stream, r.OutputTokensFrom, r.Iterations = true, probe.TokensUnknown, 0
				}
			}
			for range 25 {
				feed(200, streamedErrors)
			}
			check("errored unlike", same{yes, [numStatuses + 1]bool{true, false, true, false}})
			feed(1, func(r *probe.Record) {
				r.Outcome, r.ErrorType = probe.Successful, probe.ErrorNone
				r.Stream, r.OutputTokens, r.OutputTokensFrom = true, 5, probe.TokensFromUsage
				r.FirstToken = r.RequestStart.Add(time.Millisecond)
				r.FirstOutputToken, r.LastToken, r.Iterations = r.FirstToken.Add(time.Millisecond), r.FirstToken.Add(2*time.Millisecond), 3
			})
			check("one successful differs in both", same{[numStatuses + 1]bool{false, true, true, false}, [numStatuses + 1]bool{false, false, true, false}})
			for range 25 {
				feed(200, func(*probe.Record) {})
			}
			check("the ones that differ gone", same{yes, yes})
		})
	}
}

// TestAliasOrder holds the order summarizeRepeating relies on: each
// alias's partner is summarized right before it, and its bits fit.
func TestAliasOrder(t *testing.T) {
	for _, a := range aliases {
		if a.of != a.m-1 {
			t.Errorf("%s repeats %s, which is not the metric before it", a.m, a.of)
		}
	}
	if len(aliases)*numStatuses > 8 {
		t.Errorf("%d aliases × %d statuses do not fit in a uint8 of bits", len(aliases), numStatuses)
	}
}
