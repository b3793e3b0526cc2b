package sim

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

// TestRTQueueBound checks that the queue takes maxPendingDeltas deltas,
// drops the next one (stopping its timer), still takes the final
// transcript, and gives the items back in order.
func TestRTQueueBound(t *testing.T) {
	fake := clock.NewFake(time.Unix(0, 0))
	q := newRTQueue()
	for i := range maxPendingDeltas {
		if !q.push(rtItem{timer: fake.NewTimer(time.Second), word: "w"}) {
			t.Fatalf("delta %d refused", i)
		}
	}
	if q.push(rtItem{timer: fake.NewTimer(time.Second), word: "x"}) {
		t.Fatal("delta past the bound queued")
	}
	if n := fake.Pending(); n != maxPendingDeltas {
		t.Errorf("%d timers pending, want %d: the dropped delta's timer runs on", n, maxPendingDeltas)
	}
	if !q.push(rtItem{}) {
		t.Fatal("final transcript refused at the bound")
	}
	for i := range maxPendingDeltas + 1 {
		it, ok := q.pop()
		if !ok || (i < maxPendingDeltas) != (it.timer != nil) {
			t.Fatalf("item %d: %+v, %v", i, it, ok)
		}
	}
	if _, ok := q.pop(); ok {
		t.Error("queue not empty")
	}
	q.close()
	if !q.push(rtItem{timer: fake.NewTimer(time.Second)}) || fake.Pending() != maxPendingDeltas {
		t.Errorf("push after close: %d timers pending, want the new one stopped", fake.Pending())
	}
}
