package clock

import (
	"slices"
	"testing"
	"time"
)

func TestPreciseTimerFiresNotBeforeItsTime(t *testing.T) {
	clk := Precise()
	tests := []struct {
		name string
		d    time.Duration
	}{
		{"negative", -time.Second},
		{"zero", 0},
		{"within the nanosleep tail", preciseTail / 2},
		{"longer than the tail", preciseTail + 3*time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := clk.Now()
			timer := clk.NewTimer(tc.d)
			fired := <-timer.C()
			if early := start.Add(tc.d).Sub(fired); early > 0 {
				t.Errorf("fired %v before its time", early)
			}
			if timer.Stop() {
				t.Error("Stop after firing reported a pending timer")
			}
		})
	}
}

func TestPreciseTimerStop(t *testing.T) {
	timer := Precise().NewTimer(time.Hour).(*preciseTimer)
	if !timer.Stop() {
		t.Fatal("Stop of a pending timer reported it was not pending")
	}
	if timer.Stop() {
		t.Error("second Stop reported a pending timer")
	}
	// Even if its tail ran now (as when Stop comes during the nanosleep),
	// a stopped timer delivers nothing.
	timer.at = time.Now()
	timer.tail()
	select {
	case at := <-timer.C():
		t.Errorf("stopped timer fired at %v", at)
	default:
	}
}

// BenchmarkTimerLateness reports how late timers fire, in microseconds, for
// the runtime's timers and for precise ones, one timer at a time every 1 ms
// on an absolute schedule as the prober sets them. On an idle Linux process
// the runtime's are late by up to a millisecond (epoll_wait's timeout is in
// whole milliseconds); precise ones by tens of microseconds.
func BenchmarkTimerLateness(b *testing.B) {
	for _, bc := range []struct {
		name string
		clk  Clock
	}{{"runtime", Real()}, {"precise", Precise()}} {
		b.Run(bc.name, func(b *testing.B) {
			late := make([]time.Duration, 0, b.N)
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				at := start.Add(time.Duration(i+1) * time.Millisecond)
				t := bc.clk.NewTimer(time.Until(at))
				<-t.C()
				late = append(late, time.Since(at))
			}
			slices.Sort(late)
			n := len(late)
			b.ReportMetric(float64(late[(n-1)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(late[(n*99+99)/100-1].Microseconds()), "p99-µs")
		})
	}
}
