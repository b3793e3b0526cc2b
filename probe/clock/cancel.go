package clock

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// CancelAfter calls cancel(cause) once d has passed on c, unless the
// returned stop is called first. Once stop has returned, cancel is not
// called any more (stop waits for a call under way), and nothing is left
// behind; a d ≤ 0 arms nothing. On a clock that is an AfterFuncer (the
// real clocks) it costs a runtime timer and no goroutine.
func CancelAfter(c Clock, d time.Duration, cancel context.CancelCauseFunc, cause error) (stop func()) {
	if d <= 0 {
		return func() {}
	}
	if a, ok := c.(AfterFuncer); ok {
		return cancelAfterFunc(a, d, cancel, cause)
	}
	t := c.NewTimer(d)
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-t.C():
			cancel(cause)
		case <-quit:
		}
	}()
	return func() {
		t.Stop()
		close(quit)
		<-exited
	}
}

// States of a cancelAfterFunc.
const (
	cancelArmed int32 = iota
	cancelFiring
	cancelDone
)

// cancelAfterFunc is CancelAfter on an AfterFuncer.
func cancelAfterFunc(a AfterFuncer, d time.Duration, cancel context.CancelCauseFunc, cause error) (stop func()) {
	var state atomic.Int32
	stopTimer := a.AfterFunc(d, func() {
		if state.CompareAndSwap(cancelArmed, cancelFiring) {
			cancel(cause)
			state.Store(cancelDone)
		}
	})
	return func() {
		if stopTimer() || state.CompareAndSwap(cancelArmed, cancelDone) {
			return
		}
		for state.Load() != cancelDone { // cancel is being called: a few instructions
			runtime.Gosched()
		}
	}
}
