package window

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo"
)

// lowRateHeap returns the heap a store with window 1m, the default history
// and one objective set gains per target, over n targets, beyond its
// ring's slots (which, allocated as the buckets reach them, all are after
// the first minute: see ringSlotsHeld), from 6 hours of
// streamed requests at 0.2 requests/s (each scheduled, sent and finished
// in its 5 s slot; the window's own records are about 12 of them), and the
// bytes the first target's history holds.
func lowRateHeap(t testing.TB, n int) (perTarget float64, history int) {
	t.Helper()
	stores := make([]*Store, n)
	clocks := make([]*clock.Fake, n)
	for i := range stores {
		stores[i], clocks[i] = newTestStore(t, Settings{Windows: []time.Duration{time.Minute}, Seed: uint64(i),
			Objectives: []slo.Objective{latencyObjective}})
	}
	before := heapInUse()
	rng := rand.New(rand.NewPCG(1, 2))
	slots := int(DefaultHistoryRetention / (5 * time.Second))
	for k := range slots {
		end := t0.Add(time.Duration(k+1) * 5 * time.Second)
		for i, s := range stores {
			clocks[i].Set(end)
			s.Scheduled(target)
			s.Started(target)
			s.Finished(realistic(rng, k, end))
		}
	}
	per := float64(heapInUse()-before-ringSlotsHeld(stores)) / float64(n)
	runtime.KeepAlive(stores)
	return per, historyHeld(&stores[0].hist)
}

// TestHistoryMemoryLowRate measures the heap per target at 0.2 requests/s
// over the whole retention and checks it against the README's figure.
func TestHistoryMemoryLowRate(t *testing.T) {
	per, held := lowRateHeap(t, 8)
	t.Logf("0.2 req/s for 6 h: %.0f bytes per target, %d in its history", per, held)
	if per > lowRateBytes {
		t.Errorf("a target at 0.2 req/s holds %.0f bytes after 6 h, want at most %d", per, lowRateBytes)
	}
}

// lowRateBytes bounds the heap per target of TestHistoryMemoryLowRate, as
// the README states it.
const lowRateBytes = 190000

// historyHeld returns the bytes a history's chunks and reservoirs hold.
func historyHeld(h *history) int {
	n := int(unsafe.Sizeof(pointChunk{})) * len(h.chunks)
	for i := range h.chunks {
		n += cap(h.chunks[i].data)
	}
	for _, s := range h.open.samples {
		n += 8*cap(s.values) + 8*cap(s.weights)
	}
	return n
}

// ringSlotsHeld returns the bytes the stores' rings hold in their chunks of
// slots: a cost of the window's length (98 kB per target with every slot
// allocated), not of the rate or the history.
func ringSlotsHeld(stores []*Store) int64 {
	n := int64(0)
	for _, s := range stores {
		s.mu.Lock()
		for _, c := range s.ring.chunks {
			if c != nil {
				n += int64(unsafe.Sizeof(*c))
			}
		}
		s.mu.Unlock()
	}
	return n
}
