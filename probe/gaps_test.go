package probe

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// histogram is what an explicit-bucket histogram keeps of the values it
// is fed: bucket counts (a value v goes to the first bound ≥ v, as the
// OpenTelemetry SDK files it), count, sum in nanoseconds, minimum, maximum.
type histogram struct {
	buckets  [numGapBuckets]int64
	count    int64
	sum      int64
	min, max time.Duration
}

func (h *histogram) add(d time.Duration) {
	bounds := make([]float64, len(ChunkGapBounds))
	for i, b := range ChunkGapBounds {
		bounds[i] = b.Seconds()
	}
	h.buckets[sort.SearchFloat64s(bounds, d.Seconds())]++
	if h.count == 0 || d < h.min {
		h.min = d
	}
	if h.count == 0 || d > h.max {
		h.max = d
	}
	h.count++
	h.sum += int64(d)
}

// TestGapsReplay feeds one histogram every gap between random chunk
// arrivals and another what Gaps.Each replays of them: they must agree on
// every bucket, the count, the sum, the minimum and the maximum. The gaps
// include every bound, a nanosecond either side of it, zero and gaps past
// the last bound.
func TestGapsReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []time.Duration{0, 1, 100 * time.Second}
	for _, b := range ChunkGapBounds {
		special = append(special, b-1, b, b+1)
	}
	for trial := range 200 {
		var g Gaps
		var direct histogram
		now := t0
		g.Add(now)
		n := 1 + rng.IntN(300)
		for range n {
			d := special[rng.IntN(len(special))]
			if trial%2 == 0 {
				d = time.Duration(rng.Int64N(int64(3 * time.Second)))
			}
			now = now.Add(d)
			g.Add(now)
			direct.add(d)
		}
		var replayed histogram
		g.Each(replayed.add)
		if replayed != direct {
			t.Fatalf("trial %d: replayed %+v, want %+v", trial, replayed, direct)
		}
		if g.Chunks() != n+1 {
			t.Fatalf("trial %d: %d chunks, want %d", trial, g.Chunks(), n+1)
		}
	}
}

// TestGapsBoundsInSeconds checks that a duration at a bound and one a
// nanosecond above fall on either side of the bound in float seconds too,
// so that the exporter's histogram files each gap where Gaps did.
func TestGapsBoundsInSeconds(t *testing.T) {
	if !slices.IsSorted(ChunkGapBounds) || len(ChunkGapBounds)+1 != numGapBuckets {
		t.Fatalf("bounds %v: unsorted, or not %d buckets", ChunkGapBounds, numGapBuckets)
	}
	for _, b := range ChunkGapBounds {
		if !(b.Seconds() < (b + 1).Seconds()) || !((b - 1).Seconds() < b.Seconds()) {
			t.Errorf("bound %v: a nanosecond either side is not told apart in seconds", b)
		}
	}
}

// TestGapsEmpty checks a stream of no chunk and of one: no gaps.
func TestGapsEmpty(t *testing.T) {
	var nilGaps *Gaps
	calls := 0
	nilGaps.Each(func(time.Duration) { calls++ })
	one := &Gaps{}
	one.Add(t0)
	one.Each(func(time.Duration) { calls++ })
	if calls != 0 || nilGaps.Chunks() != 0 || one.Chunks() != 1 {
		t.Errorf("%d gaps, %d and %d chunks; want 0, 0 and 1", calls, nilGaps.Chunks(), one.Chunks())
	}
}

// TestGapsSize checks that a Gaps stays the same size however many chunks
// it has seen: a million chunks allocate nothing after the first.
func TestGapsSize(t *testing.T) {
	g := &Gaps{}
	now := t0
	allocs := testing.AllocsPerRun(10, func() {
		for range 100000 {
			now = now.Add(time.Millisecond)
			g.Add(now)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 100000 chunks, want 0", allocs)
	}
}

// TestInstants checks the series' figures against hand-computed ones:
// 0.1, 0.2 and 0.6 s after t0 have first 0.1, last 0.6 and mean 0.3.
func TestInstants(t *testing.T) {
	s := InstantsOf(t0.Add(100*time.Millisecond), t0.Add(200*time.Millisecond), t0.Add(600*time.Millisecond))
	if s.Len() != 3 || !s.First().Equal(t0.Add(100*time.Millisecond)) || !s.Last().Equal(t0.Add(600*time.Millisecond)) {
		t.Errorf("len %d first %v last %v", s.Len(), s.First(), s.Last())
	}
	if got := time.Duration(s.meanSince(t0)); got != 300*time.Millisecond {
		t.Errorf("mean %v after t0, want 300ms", got)
	}
	var empty Instants
	if empty.Len() != 0 || !empty.First().IsZero() || empty.meanSince(t0) != 0 {
		t.Errorf("empty series %+v", empty)
	}
	var grow Instants
	allocs := testing.AllocsPerRun(10, func() { grow.Add(t0) })
	if allocs != 0 {
		t.Errorf("%v allocations per instant, want 0", allocs)
	}
}
