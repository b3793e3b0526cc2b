package window

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPointRoundTrip encodes points with zero, small and largest counters,
// absent, repeated and up to 18 distinct percentiles (past the 15 that fit
// two indices to a byte), with and without busy time, and checks that each
// decodes to the same bits, several points to a buffer.
func TestPointRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lay := counterLayout(3)
	var buf []byte
	var want []point
	for i := range 500 {
		p := point{counts: make([]uint32, lay.total), pct: make([]float32, 18), approx: i%3 == 0}
		for c := range p.counts {
			p.counts[c] = []uint32{0, 1, 127, 128, math.MaxUint32, rng.Uint32()}[rng.IntN(6)]
		}
		distinct := 1 + i%18
		for k := range p.pct {
			p.pct[k] = float32(rng.IntN(distinct)) * 0.001
			if rng.IntN(4) == 0 {
				p.pct[k] = float32(math.NaN())
			}
		}
		if i%18 == 17 {
			for k := range p.pct {
				p.pct[k] = float32(k) + 0.5
			}
		}
		if i%2 == 0 {
			p.busy = rng.Float32()
		}
		buf = p.encode(buf)
		want = append(want, p)
	}
	got := point{counts: make([]uint32, lay.total), pct: make([]float32, 18)}
	rest := buf
	for i, w := range want {
		n := len(w.encode(nil))
		got.decode(rest[:n])
		rest = rest[n:]
		if !slices.Equal(got.counts, w.counts) || got.busy != w.busy || got.approx != w.approx {
			t.Fatalf("point %d: got %+v, want %+v", i, got, w)
		}
		for k := range w.pct {
			if math.Float32bits(got.pct[k]) != math.Float32bits(w.pct[k]) && !(math.IsNaN(float64(got.pct[k])) && math.IsNaN(float64(w.pct[k]))) {
				t.Fatalf("point %d percentile %d: got %v, want %v", i, k, got.pct[k], w.pct[k])
			}
		}
	}
	if len(rest) != 0 {
		t.Errorf("%d bytes left over", len(rest))
	}
}
