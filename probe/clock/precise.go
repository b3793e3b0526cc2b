package clock

import (
	"sync/atomic"
	"time"
)

// preciseTail is how long before its time a precise timer stops relying on
// the Go runtime's timers, which fire up to about a millisecond late when
// the process is idle (on Linux the runtime waits for them in epoll_wait,
// whose timeout is in whole milliseconds). The rest of the wait is a
// blocking nanosleep on a thread of its own, late by tens of microseconds.
const preciseTail = 2 * time.Millisecond

// preciseClock is the process's real clock whose timers fire within tens of
// microseconds of their time: what keeps dispatch delay small at every rate.
// A timer costs what a time.Timer costs until its last preciseTail, then one
// goroutine blocked in a system call; a stopped timer costs nothing more.
type preciseClock struct{ Clock }

// Precise returns the process's real clock with precise timers: a runtime
// timer until preciseTail before the deadline, then a blocking nanosleep.
func Precise() Clock { return preciseClock{Real()} }

// Timer states.
const (
	timerPending int32 = iota
	timerFired
	timerStopped
)

// preciseTimer is one timer of a preciseClock.
type preciseTimer struct {
	at    time.Time
	c     chan time.Time
	state atomic.Int32
	rt    *time.Timer
}

// NewTimer implements Clock: the timer fires d after now. A timer due
// within preciseTail starts its tail at once, without a runtime timer (whose
// arming would also wake the runtime's network poller).
func (preciseClock) NewTimer(d time.Duration) Timer {
	t := &preciseTimer{at: time.Now().Add(d), c: make(chan time.Time, 1)}
	if d <= preciseTail {
		go t.tail()
		return t
	}
	t.rt = time.AfterFunc(d-preciseTail, t.tail)
	return t
}

// AfterFunc implements AfterFuncer with a runtime timer: what it is used
// for (a request's timeout) needs no precision below a millisecond.
func (c preciseClock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	return c.Clock.(realClock).AfterFunc(d, f)
}

// tail waits for the timer's last stretch and fires it unless it was stopped.
func (t *preciseTimer) tail() {
	sleepUntil(t.at)
	if t.state.CompareAndSwap(timerPending, timerFired) {
		t.c <- time.Now()
	}
}

// C implements Timer.
func (t *preciseTimer) C() <-chan time.Time { return t.c }

// Stop implements Timer: it reports whether the timer was pending.
func (t *preciseTimer) Stop() bool {
	if !t.state.CompareAndSwap(timerPending, timerStopped) {
		return false
	}
	if t.rt != nil {
		t.rt.Stop()
	}
	return true
}
