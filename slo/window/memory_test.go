package window

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// bytesPerRecord is the documented bound on the heap a store keeps per
// record it holds, for streamed HTTP requests (10 defined quantities): the
// 96-byte entry, 16 bytes per quantity in the index, the index's spare
// capacity (at most a sixteenth) and the buckets' and aggregates' share;
// bytesPerAlikeRecord while none of the records held has a TTFOT other
// than its TTFT or streaming iterations other than its output tokens (8
// quantities in the index: see aliases).
const (
	bytesPerRecord      = 300
	bytesPerAlikeRecord = 265
)

// retainedPerRecord returns the heap retained by a store of windows 1m and
// 5m, the default cap and no snapshot cache, fed n streamed requests over
// 5 minutes and read once (which builds its index), per record it keeps,
// less what the history holds (historyHeld: its 30 points and reservoirs,
// which do not depend on the records kept).
func retainedPerRecord(t *testing.T, n int, differ bool) float64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Minute, 5 * time.Minute}, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	step := 5 * time.Minute / time.Duration(n)
	for i := range n {
		end := t0.Add(step * time.Duration(i+1))
		clk.Set(end)
		s.Started(target)
		rec := realistic(rng, i, end)
		if differ && i%100 == 0 {
			rec.FirstOutputToken, rec.Iterations = rec.FirstOutputToken.Add(time.Millisecond), rec.Iterations-1
		}
		s.Finished(rec)
	}
	s.CurrentAll()
	// Twice: the snapshot's pooled buffers survive one collection.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := 0
	s.mu.Lock()
	for i := range s.ring.nslots {
		if sl := s.ring.slot(i); sl != nil {
			kept += len(sl.kept)
		}
	}
	fixed := uint64(historyHeld(&s.hist))
	s.mu.Unlock()
	runtime.KeepAlive(s)
	grown := after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
	return float64(grown-min(grown, fixed)) / float64(kept)
}

// The heap a store keeps per record stays under bytesPerAlikeRecord, and
// with one record in 100 whose TTFOT and iterations differ under
// bytesPerRecord, below the cap and at it (120 000 requests in 5m, of which
// about 99 000 are kept).
func TestBytesPerRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a store with 120 000 requests")
	}
	for _, differ := range []bool{false, true} {
		bound := bytesPerAlikeRecord
		if differ {
			bound = bytesPerRecord
		}
		for _, n := range []int{20000, 120000} {
			if got := retainedPerRecord(t, n, differ); got > float64(bound) {
				t.Errorf("%d requests (some TTFOT ≠ TTFT: %v): %.0f bytes per record kept, want at most %d", n, differ, got, bound)
			} else {
				t.Logf("%d requests (some TTFOT ≠ TTFT: %v): %.0f bytes per record kept", n, differ, got)
			}
		}
	}
}
