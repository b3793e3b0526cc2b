package probe_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// noopBackend answers every request at once: what remains to measure is the
// prober's own path from a due slot to the backend and back to the observers.
type noopBackend struct{}

func (noopBackend) Do(_ context.Context, req *probe.Request) *probe.Record {
	now := time.Now()
	return &probe.Record{RequestStart: now, End: now, Outcome: probe.Successful, OutputTokens: req.MaxOutputTokens}
}

// firstN is a constant-rate strategy that stops after n requests.
type firstN struct {
	*probe.Constant
	n uint64
}

func (s firstN) Next(n uint64) probe.Decision {
	if n >= s.n {
		return probe.Decision{Kind: probe.Stop}
	}
	return s.Constant.Next(n)
}

// BenchmarkProberDispatch runs b.N requests through a prober whose schedule
// is always overdue (10⁹ requests per second) and whose backend does
// nothing, so one operation is the CPU cost of dispatching and recording one
// single-turn synthetic request of 32 prompt and 64 output tokens: strategy,
// workload (prompt text), concurrency slot, goroutine, observers.
func BenchmarkProberDispatch(b *testing.B) {
	constant, err := probe.NewConstant(1e9, 0)
	if err != nil {
		b.Fatal(err)
	}
	p, err := probe.NewProber(probe.ProberConfig{
		Target:   "bench",
		Strategy: firstN{Constant: constant, n: uint64(b.N)},
		Workload: probe.NewSynthetic(probe.Fixed(32), probe.Fixed(64), 1),
		Backend:  noopBackend{}, MaxConcurrency: 64, MaxQueue: 1 << 20,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if err := p.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
}
