package realtime_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// countingClock is a fake clock that counts its readings: the backend
// reads it once per server event, so the count says how many it handled.
type countingClock struct {
	*clock.Fake
	reads atomic.Int64
}

func (c *countingClock) Now() time.Time {
	c.reads.Add(1)
	return c.Fake.Now()
}

// waitReads polls until the clock has been read n times.
func (c *countingClock) waitReads(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for c.reads.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d clock readings, want %d", c.reads.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// liveHeap returns the live heap after a full collection, in bytes.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDeltaFloodMemoryBounded floods one request with 10 000 deltas,
// measures the live heap while it is in flight, floods 100 000 more and
// measures again: what a request keeps does not grow with its events (a
// receive time and a chunk time per delta would add at least 48 bytes
// each, 4.8 MB here).
func TestDeltaFloodMemoryBounded(t *testing.T) {
	const first, more, bound = 10000, 100000, 512 << 10
	clk := &countingClock{Fake: clock.NewFake(t0)}
	step := make(chan struct{})
	url := serve(t, script{end: func(c *websocket.Conn, final <-chan struct{}) {
		<-final
		for _, n := range []int{first, more} {
			for range n {
				_ = c.WriteMessage(websocket.TextMessage, []byte(delta))
			}
			<-step
		}
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"transcription.done","text":"x"}`))
	}})
	b := newBackend(t, realtime.Config{BaseURL: url, Clock: clk, Audio: realtime.Tone(300 * time.Millisecond)})
	got := make(chan *probe.Record, 1)
	go func() { got <- do(b) }()
	const setup = 1 + 3 // the request start, 3 audio chunks sent
	clk.waitReads(t, setup+first)
	before := liveHeap()
	step <- struct{}{}
	clk.waitReads(t, setup+first+more)
	after := liveHeap()
	step <- struct{}{}
	rec := <-got
	checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
	if rec.Received.Len() != first+more || rec.ChunkGaps.Chunks() != first+more+1 {
		t.Fatalf("%d received, %d chunks; want %d, %d", rec.Received.Len(), rec.ChunkGaps.Chunks(), first+more, first+more+1)
	}
	if after > before && after-before > bound {
		t.Errorf("live heap grew by %d bytes over %d more deltas, want at most %d", after-before, more, bound)
	}
	t.Logf("live heap %d bytes after %d deltas, %d after %d", before, first, after, first+more)
}
