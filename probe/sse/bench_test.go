package sse

import (
	"bytes"
	"testing"
)

// BenchmarkNextRaw reads a stream of chat chunks as servers flush them
// (one data line an event) and of events with a non-standard field, the
// path that charges field names.
func BenchmarkNextRaw(b *testing.B) {
	for _, bc := range []struct{ name, event string }{
		{"data", "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"},
		{"field", "error: {\"code\":400}\ndata: {\"choices\":[]}\n\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			body := bytes.Repeat([]byte(bc.event), 1000)
			src := bytes.NewReader(body)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				src.Reset(body)
				r := NewReader(src, 0)
				for {
					if _, err := r.NextRaw(); err != nil {
						break
					}
				}
			}
		})
	}
}
