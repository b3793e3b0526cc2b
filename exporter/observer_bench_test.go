package exporter

import (
	"context"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// BenchmarkObserverFinished measures the observer's record path for one
// request, as the prober calls it for every probe: Started, then Finished
// with the record (every instrument, the SLO counters and the recent
// probes), for a streamed request with 64 chunks and objectives (alpha)
// and a non-streamed one without (beta).
func BenchmarkObserverFinished(b *testing.B) {
	streamedRec := alphaOK()
	streamedRec.ChunkGaps = &probe.Gaps{}
	for i := range 64 {
		streamedRec.ChunkGaps.Add(at(110 + 3*i))
	}
	for _, bc := range []struct {
		name   string
		target Target
		rec    *probe.Record
	}{
		{"streamed", alpha, streamedRec},
		{"non-streamed", beta, betaOK()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m, err := NewMetrics(context.Background(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = m.Shutdown(context.Background()) }()
			o, err := NewObserver(m, []Target{bc.target})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				o.Started(bc.target.Name)
				o.Finished(bc.rec)
			}
		})
	}
}
