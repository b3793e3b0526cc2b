// Package clock is the single source of time for schedulers, backends and windows.
//
// Every timestamp of a request is read from one Clock, so that tests can drive
// time by hand and the scheduler and the measurement agree on what "now" is.
// Readings from the real clock carry Go's monotonic reading; durations are
// always computed with time.Time.Sub, never from wall-clock arithmetic.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time (with a monotonic reading for the real clock).
	Now() time.Time
	// NewTimer returns a timer that fires once, d after now.
	NewTimer(d time.Duration) Timer
}

// Timer is a one-shot timer, like time.Timer.
type Timer interface {
	// C delivers the time at which the timer fired.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was still pending.
	Stop() bool
}

// AfterFuncer is a Clock that can run a function after a duration in its
// own goroutine, as time.AfterFunc does, without a goroutine waiting
// meanwhile. stop prevents f from running and reports whether it did; it
// does not wait for an f that has started.
type AfterFuncer interface {
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Real returns the wall clock of the process.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// AfterFunc implements AfterFuncer.
func (realClock) AfterFunc(d time.Duration, f func()) (stop func() bool) {
	return time.AfterFunc(d, f).Stop
}

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }
func (r realTimer) Stop() bool          { return r.t.Stop() }
