package probe

import (
	"slices"
	"time"
)

// ChunkGapBounds are the upper bounds of the buckets Gaps files the gaps
// between consecutive chunks into, in increasing order: the OpenTelemetry
// GenAI conventions' advice for gen_ai.client.operation.time_per_output_chunk
// (0.01 s to 81.92 s, doubling). Bucket i holds the gaps d with
// ChunkGapBounds[i−1] < d ≤ ChunkGapBounds[i]; one more bucket holds those
// above the last bound. A histogram with these boundaries that is fed
// Gaps.Each receives the same bucket counts, count, sum, minimum and maximum
// as if it had been fed every gap.
var ChunkGapBounds = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
	160 * time.Millisecond, 320 * time.Millisecond, 640 * time.Millisecond, 1280 * time.Millisecond,
	2560 * time.Millisecond, 5120 * time.Millisecond, 10240 * time.Millisecond, 20480 * time.Millisecond,
	40960 * time.Millisecond, 81920 * time.Millisecond,
}

// numGapBuckets is the number of buckets of a Gaps: one per bound and one above.
const numGapBuckets = 15

// gapBucket aggregates the gaps of one bucket exactly, in nanoseconds.
type gapBucket struct {
	n             int64
	sum, min, max int64
}

// Gaps summarizes the arrival times of a stream's chunks in constant memory
// (about 500 bytes) however many arrive: their number, the last one, and
// per bucket of ChunkGapBounds the count, sum, minimum and maximum of the
// gaps between consecutive chunks. The zero value has seen no chunk.
type Gaps struct {
	chunks  int
	last    time.Time
	buckets [numGapBuckets]gapBucket
}

// Add records a chunk that arrived at t, after every chunk added before.
func (g *Gaps) Add(t time.Time) {
	if g.chunks > 0 {
		g.addGap(t.Sub(g.last))
	}
	g.chunks++
	g.last = t
}

// addGap files d into its bucket.
func (g *Gaps) addGap(d time.Duration) {
	i, _ := slices.BinarySearch(ChunkGapBounds, d)
	b := &g.buckets[i]
	v := int64(d)
	if b.n == 0 || v < b.min {
		b.min = v
	}
	if b.n == 0 || v > b.max {
		b.max = v
	}
	b.n++
	b.sum += v
}

// Chunks returns the number of chunks added.
func (g *Gaps) Chunks() int {
	if g == nil {
		return 0
	}
	return g.chunks
}

// Each calls f once per gap between consecutive chunks (Chunks() − 1
// times) with durations that have, bucket by bucket, exactly the count,
// sum (in nanoseconds), minimum and maximum of the gaps that were added:
// each bucket's minimum, its maximum, and its remaining sum spread evenly
// over the rest in whole nanoseconds, so every value lies between the
// bucket's minimum and maximum. A nil Gaps has no gaps.
func (g *Gaps) Each(f func(time.Duration)) {
	if g == nil {
		return
	}
	for _, b := range g.buckets {
		b.each(f)
	}
}

// each replays one bucket.
func (b gapBucket) each(f func(time.Duration)) {
	if b.n == 0 {
		return
	}
	f(time.Duration(b.min))
	if b.n == 1 {
		return
	}
	f(time.Duration(b.max))
	rest := b.n - 2
	if rest == 0 {
		return
	}
	remaining := b.sum - b.min - b.max
	q, r := remaining/rest, remaining%rest
	if r < 0 { // floor division: gaps are negative only on a clock that went back
		q, r = q-1, r+rest
	}
	for i := range rest {
		v := q
		if i < r {
			v++
		}
		f(time.Duration(v))
	}
}
