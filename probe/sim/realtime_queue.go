package sim

import (
	"sync"

	"github.com/llmprober/llmprober/probe/clock"
)

// maxPendingDeltas bounds the deltas a realtime session holds unsent: the
// chunks of 10 minutes of audio in 10 ms chunks, the most a probe sends.
const maxPendingDeltas = 60000

// rtItem is what the writer sends next: a delta once its timer fires, or
// the final transcript (timer nil).
type rtItem struct {
	timer clock.Timer
	word  string
}

// rtQueue is the unbounded queue from a realtime session's reader to its
// writer, so that the reader never waits for the writer: each delta's
// timer starts when its chunk is read, however many deltas are queued.
type rtQueue struct {
	mu     sync.Mutex
	items  []rtItem
	closed bool
	wake   chan struct{} // holds a token while items may be queued
}

func newRTQueue() *rtQueue { return &rtQueue{wake: make(chan struct{}, 1)} }

// push queues it. A delta past maxPendingDeltas unsent ones is dropped:
// push stops its timer and reports false. Once the queue is closed it
// stops the timer too.
func (q *rtQueue) push(it rtItem) bool {
	q.mu.Lock()
	full := it.timer != nil && len(q.items) >= maxPendingDeltas
	queued := !q.closed && !full
	if queued {
		q.items = append(q.items, it)
	}
	q.mu.Unlock()
	if !queued {
		if it.timer != nil {
			it.timer.Stop()
		}
		return !full
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// pop returns the oldest item; ok is false when the queue is empty.
func (q *rtQueue) pop() (it rtItem, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return rtItem{}, false
	}
	it = q.items[0]
	q.items[0] = rtItem{}
	q.items = q.items[1:]
	return it, true
}

// close ends the queue and stops the timers of the items never sent;
// later pushes stop theirs.
func (q *rtQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	for _, it := range q.items {
		if it.timer != nil {
			it.timer.Stop()
		}
	}
	q.items = nil
}
