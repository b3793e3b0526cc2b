package window

import (
	"runtime"
	"testing"
	"time"
)

// TestHistoryMemory measures the heap that histories with the default
// interval and retention (2160 points) and one objective set hold once
// every point and every reservoir is filled, and checks it against
// HistoryBytes: within 5 % of it (the allocator rounds large blocks up to
// whole pages), so that the figure the README states is neither low nor
// far too high. Filling a
// second retention allocates nothing that stays.
func TestHistoryMemory(t *testing.T) {
	const n = 8
	bound := HistoryBytes(DefaultHistoryInterval, DefaultHistoryRetention, 1)
	fillOne := func(h *history, from time.Time) {
		for i := range 2 * int(DefaultHistoryRetention/DefaultHistoryInterval) {
			now := from.Add(time.Duration(i) * DefaultHistoryInterval)
			h.scheduled(now)
			h.started(now)
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
	if per > 1.05*float64(bound) || per < 0.95*float64(bound) {
		t.Errorf("history holds %.0f bytes per target, want %d ± 5%%", per, bound)
	}
	mid := heapInUse()
	for i := range hs {
		fillOne(&hs[i], t0.Add(3*DefaultHistoryRetention))
	}
	if grown := float64(heapInUse()-mid) / n; grown > 1024 {
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
