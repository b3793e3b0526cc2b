package window

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// TestHistoryMemory measures the heap that histories with the default
// interval and retention (2160 points) and one objective set hold once
// every point is at its largest (every counter at its maximum, 18 distinct
// percentiles) and every reservoir is filled, and checks it against
// HistoryBytes: at most it, and within 15 % of it (the chunk being filled
// may not have doubled yet, and the allocator rounds blocks up to its size
// classes), so that the figure the README states is neither low nor far
// too high. Filling a second retention keeps less than 4 kB more per
// target (the chunk being filled may stand at another size).
func TestHistoryMemory(t *testing.T) {
	const n = 4
	bound := HistoryBytes(DefaultHistoryInterval, DefaultHistoryRetention, 1)
	fillOne := func(h *history, from time.Time) {
		for i := range 2 * int(DefaultHistoryRetention/DefaultHistoryInterval) {
			h.advance(from.Add(time.Duration(i) * DefaultHistoryInterval))
			for c := range h.open.counts {
				h.open.counts[c] = math.MaxUint32
			}
			for q := range h.open.samples {
				for v := range 100 {
					h.open.samples[q].add(float64(1000*q+v), 1, h.open.rng)
				}
			}
			h.inflight = 1
		}
		for q := range h.open.samples {
			for range HistorySampleCap + 1 {
				h.open.samples[q].add(1, 1, h.open.rng)
			}
		}
	}
	before := heapInUse()
	hs := make([]history, n)
	for i := range hs {
		hs[i] = newHistory(DefaultHistoryInterval, DefaultHistoryRetention, 1, uint64(i))
		fillOne(&hs[i], t0)
	}
	per := float64(heapInUse()-before) / n
	t.Logf("history: %.0f bytes per target measured, %d bound", per, bound)
	if per > float64(bound) || per < 0.85*float64(bound) {
		t.Errorf("history holds %.0f bytes per target, want at most %d and at least 85 %% of it", per, bound)
	}
	mid := heapInUse()
	for i := range hs {
		fillOne(&hs[i], t0.Add(3*DefaultHistoryRetention))
	}
	if grown := float64(heapInUse()-mid) / n; grown > 4096 {
		t.Errorf("a second retention added %.0f bytes per target", grown)
	}
	runtime.KeepAlive(hs)
}

// heapInUse returns the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
