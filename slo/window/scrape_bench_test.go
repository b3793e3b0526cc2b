package window

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// scrapeSizes are the numbers of requests ending in the 5m window of
// BenchmarkSnapshots: at 3.3, 33 and 400 requests per second. The last is
// past the default cap (138 records per 417 ms bucket, 331 requests/s).
var scrapeSizes = []int{1000, 10000, 120000}

// realistic returns request i of a steady stream ending at end: streamed,
// with a dispatch delay of 0.1–1 ms, a TTFT of 50–300 ms, 16–80 output
// tokens 10–30 ms apart and 100–300 prompt tokens, drawn from rng.
func realistic(rng *rand.Rand, i int, end time.Time) *probe.Record {
	output := 16 + rng.IntN(65)
	itl := time.Duration(10+rng.IntN(20)) * time.Millisecond
	ttft := time.Duration(50+rng.IntN(250)) * time.Millisecond
	last := end.Add(-time.Duration(rng.IntN(1000)) * time.Microsecond)
	first := last.Add(-itl * time.Duration(output-1))
	start := first.Add(-ttft)
	return &probe.Record{
		Target: target, Seq: uint64(i), Stream: true,
		TargetedStart: start.Add(-time.Duration(100+rng.IntN(900)) * time.Microsecond), RequestStart: start,
		FirstToken: first, FirstOutputToken: first, LastToken: last, End: end,
		PromptTokens: 100 + rng.IntN(201), PromptTokensFrom: probe.TokensFromUsage,
		OutputTokens: output, OutputTokensFrom: probe.TokensFromUsage, Iterations: output,
		Outcome: probe.Successful,
	}
}

// fillSteady records n requests ending evenly over d after t0 into a
// store with windows 1m and 5m and the default cap, 1% of them errored,
// and returns the store and the instant of the last end.
func fillSteady(b *testing.B, n int, d time.Duration) (*Store, time.Time) {
	b.Helper()
	s, clk := newTestStore(b, Settings{Windows: []time.Duration{time.Minute, 5 * time.Minute}, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	step := d / time.Duration(n)
	for i := range n {
		end := t0.Add(step * time.Duration(i+1))
		clk.Set(end)
		rec := realistic(rng, i, end)
		if i%100 == 99 {
			rec.Outcome, rec.ErrorType = probe.Errored, probe.ErrorHTTP5xx
		}
		s.Started(target)
		s.Finished(rec)
	}
	return s, t0.Add(d)
}

// BenchmarkSnapshots measures a scrape's window work: both windows of a
// store holding n requests in its 5m window, computed anew each time.
func BenchmarkSnapshots(b *testing.B) {
	for _, n := range scrapeSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, now := fillSteady(b, n, 5*time.Minute)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if snaps := s.Snapshots(now); snaps[1].Requests.All != int64(n) {
					b.Fatalf("%d requests in the 5m window, want %d", snaps[1].Requests.All, n)
				}
			}
		})
	}
}

// BenchmarkScrapeSnapshots measures the windows' share of a scrape at 400
// requests/s (past the cap), with windows 1m and 5m and with the default
// windows 1m, 5m and 1h: each operation records 15 s of new requests (the
// timer stopped), then computes every window, bringing the index and the
// sub-indexes up to date with those requests first.
func BenchmarkScrapeSnapshots(b *testing.B) {
	const rate = 400
	for _, ws := range [][]time.Duration{{time.Minute, 5 * time.Minute}, {time.Minute, 5 * time.Minute, time.Hour}} {
		b.Run(fmt.Sprintf("windows=%v", ws), func(b *testing.B) {
			s, clk := newTestStore(b, Settings{Windows: ws, Seed: 1})
			rng := rand.New(rand.NewPCG(1, 2))
			end, i := t0, 0
			feed := func(d time.Duration) {
				for until := end.Add(d); end.Before(until); i++ {
					end = end.Add(time.Second / rate)
					clk.Set(end)
					s.Started(target)
					s.Finished(realistic(rng, i, end))
				}
			}
			feed(slices.Max(ws))
			s.Snapshots(end)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				feed(15 * time.Second)
				b.StartTimer()
				s.Snapshots(end)
			}
		})
	}
}
