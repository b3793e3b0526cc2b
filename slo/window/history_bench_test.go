package window

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmprober/llmprober/slo"
)

// lowRateStore returns a store with window 1m and one objective set fed n
// streamed requests at 0.2 requests/s, and the instant of the last end.
func lowRateStore(b *testing.B, n int) (*Store, func(end time.Time)) {
	b.Helper()
	s, clk := newTestStore(b, Settings{Windows: []time.Duration{time.Minute}, Objectives: []slo.Objective{latencyObjective}})
	rng := rand.New(rand.NewPCG(1, 2))
	k := 0
	feed := func(end time.Time) {
		clk.Set(end)
		s.Scheduled(target)
		s.Started(target)
		s.Finished(realistic(rng, k, end))
		k++
	}
	for i := range n {
		feed(t0.Add(time.Duration(i+1) * 5 * time.Second))
	}
	return s, feed
}

// BenchmarkHistoryLowRate measures a target at 0.2 requests/s with a full
// history (6 h): recording one request (scheduled, sent, finished; every
// other one closes a point), and reading the whole history
// (Store.History, 2160 points).
func BenchmarkHistoryLowRate(b *testing.B) {
	slots := int(DefaultHistoryRetention / (5 * time.Second))
	b.Run("record", func(b *testing.B) {
		_, feed := lowRateStore(b, slots)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			feed(t0.Add(time.Duration(slots+i+1) * 5 * time.Second))
		}
	})
	b.Run("read", func(b *testing.B) {
		s, _ := lowRateStore(b, slots)
		b.ReportAllocs()
		for b.Loop() {
			if h := s.History(0); len(h.Times) != 2160 {
				b.Fatalf("%d points", len(h.Times))
			}
		}
	})
}
