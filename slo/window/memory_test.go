package window

import (
	"math/rand/v2"
	"runtime"
	"slices"
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
// A record within a window that has a sub-index costs besides at most
// subIndexBytes per quantity: 16 bytes, at most a sixteenth of spare room
// and the allocator's rounding.
const (
	bytesPerRecord      = 300
	bytesPerAlikeRecord = 265
	subIndexBytes       = 20
)

// retainedPerRecord returns the heap retained by a store of windows ws,
// the default cap and no snapshot cache, fed n streamed requests over the
// longest and read once (which builds its index), per record it keeps,
// less what the history holds (historyHeld: its points and reservoirs,
// which do not depend on the records kept).
func retainedPerRecord(t *testing.T, ws []time.Duration, n int, differ bool) float64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, clk := newTestStore(t, Settings{Windows: ws, Seed: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	step := slices.Max(ws) / time.Duration(n)
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

// The heap a store of windows 1m and 5m keeps per record stays under
// bytesPerAlikeRecord, and with one record in 100 whose TTFOT and
// iterations differ under bytesPerRecord, below the cap and at it (120 000
// requests in 5m, of which about 99 000 are kept). With the default
// windows 1m, 5m and 1h (120 000 requests in 1h), whose 1m and 5m keep
// sub-indexes holding a tenth of the records, 8 quantities (10) ×
// subIndexBytes ÷ 10 more: 16 bytes (20).
func TestBytesPerRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("fills stores with 120 000 requests")
	}
	short := []time.Duration{time.Minute, 5 * time.Minute}
	defaults := []time.Duration{time.Minute, 5 * time.Minute, time.Hour}
	for _, c := range []struct {
		ws    []time.Duration
		n     int
		extra int // per quantity held, in tenths of subIndexBytes
	}{{short, 20000, 0}, {short, 120000, 0}, {defaults, 120000, 1}} {
		for _, differ := range []bool{false, true} {
			bound, quantities := bytesPerAlikeRecord, 8
			if differ {
				bound, quantities = bytesPerRecord, 10
			}
			bound += quantities * c.extra * subIndexBytes / 10
			got := retainedPerRecord(t, c.ws, c.n, differ)
			if got > float64(bound) {
				t.Errorf("windows %v, %d requests (some TTFOT ≠ TTFT: %v): %.0f bytes per record kept, want at most %d", c.ws, c.n, differ, got, bound)
			} else {
				t.Logf("windows %v, %d requests (some TTFOT ≠ TTFT: %v): %.0f bytes per record kept", c.ws, c.n, differ, got)
			}
		}
	}
}
