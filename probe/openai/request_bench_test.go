package openai

import (
	"context"
	"net/http"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// BenchmarkRequest measures building one request as the prober does for
// every probe: the synthetic workload's prompt (32 tokens, 64 output
// tokens), then the HTTP request with its JSON body and headers, for a
// chat target with both max tokens fields, streamed and not.
func BenchmarkRequest(b *testing.B) {
	for _, stream := range []bool{false, true} {
		name := map[bool]string{false: "non-streamed", true: "streamed"}[stream]
		b.Run(name, func(b *testing.B) {
			be, err := New(Config{Target: "t1", BaseURL: "http://127.0.0.1:1/v1", API: "chat", Model: "sim-model",
				Stream: stream, Client: http.DefaultClient, Header: http.Header{"User-Agent": {"llmprober/dev"}}})
			if err != nil {
				b.Fatal(err)
			}
			w := probe.NewSynthetic(probe.Fixed(32), probe.Fixed(64), 1)
			ctx := context.Background()
			b.ReportAllocs()
			var n uint64
			for b.Loop() {
				req := w.Turn(n, 0).Request
				n++
				if _, err := be.newRequest(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
