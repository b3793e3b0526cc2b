package clock

import (
	"sort"
	"sync"
	"time"
)

// Fake is a Clock whose time moves only when told to. It is safe for concurrent use.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

// NewFake returns a Fake clock reading start.
func NewFake(start time.Time) *Fake { return &Fake{now: start} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// NewTimer returns a timer that fires when the fake time reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := &fakeTimer{f: f, at: f.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		t.fire(f.now)
		return t
	}
	f.timers = append(f.timers, t)
	return t
}

// Advance moves the fake time forward by d, firing every timer that falls due, in order.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	sort.SliceStable(f.timers, func(i, j int) bool { return f.timers[i].at.Before(f.timers[j].at) })
	kept := f.timers[:0]
	for _, t := range f.timers {
		if !t.at.After(f.now) {
			t.fire(t.at)
			continue
		}
		kept = append(kept, t)
	}
	f.timers = kept
}

// Set moves the fake time to t (never backwards), firing due timers.
func (f *Fake) Set(t time.Time) {
	if d := t.Sub(f.Now()); d > 0 {
		f.Advance(d)
	}
}

// Pending returns the number of timers not yet fired or stopped.
func (f *Fake) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

type fakeTimer struct {
	f     *Fake
	at    time.Time
	c     chan time.Time
	fired bool
}

func (t *fakeTimer) fire(at time.Time) {
	t.fired = true
	t.c <- at
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	for i, x := range t.f.timers {
		if x == t {
			t.f.timers = append(t.f.timers[:i], t.f.timers[i+1:]...)
			return true
		}
	}
	return false
}
