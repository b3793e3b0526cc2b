package window

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// A target's windows are taken at one instant: a window asked for within
// the cache TTL of another ends where that one ends, and every window
// longer than the time measured starts exactly at the measure start.
func TestWindowsShareOneInstant(t *testing.T) {
	s, clk := newTestStore(t, Settings{Warmup: 10 * time.Second, CacheTTL: time.Second})
	finish(s, twoRequests...)
	clk.Set(at(70000)) // measuring since t0 + 10 s: 60 s measured
	oneMinute := s.Current(time.Minute)
	clk.Set(at(70500))
	fiveMinutes := s.Current(5 * time.Minute)
	all := s.CurrentAll()
	start, _ := s.MeasureStart()
	if !start.Equal(at(10000)) {
		t.Fatalf("measure start %v, want t0 + 10 s", start)
	}
	for i, snap := range append([]*Snapshot{oneMinute, fiveMinutes}, all...) {
		if !snap.End.Equal(at(70000)) {
			t.Errorf("snapshot %d (%s): end %v, want t0 + 70 s", i, snap.Name(), snap.End)
		}
		if !snap.Start.Equal(at(10000)) {
			t.Errorf("snapshot %d (%s): start %v, want the measure start t0 + 10 s", i, snap.Name(), snap.Start)
		}
	}
	if all[0] != oneMinute || all[1] != fiveMinutes || all[2].Window != time.Hour {
		t.Errorf("CurrentAll did not reuse the snapshots at t0 + 70 s in configured order")
	}
	// Past the TTL every window is taken anew at the new instant; the 1m
	// window is no longer clipped.
	clk.Set(at(71000))
	for _, snap := range s.CurrentAll() {
		wantStart := at(10000)
		if snap.Window == time.Minute {
			wantStart = at(11000)
		}
		if !snap.End.Equal(at(71000)) || !snap.Start.Equal(wantStart) {
			t.Errorf("%s: [%v, %v], want [%v, t0 + 71 s]", snap.Name(), snap.Start, snap.End, wantStart)
		}
	}
}

// Without a cache, the windows taken together still share their instant.
func TestCurrentAllWithoutCache(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	clk.Set(at(90000))
	all := s.CurrentAll()
	if len(all) != 3 {
		t.Fatalf("%d snapshots, want 3", len(all))
	}
	for _, snap := range all {
		wantStart := t0
		if snap.Window == time.Minute {
			wantStart = at(30000)
		}
		if !snap.End.Equal(at(90000)) || !snap.Start.Equal(wantStart) || snap.Length() != snap.End.Sub(wantStart) {
			t.Errorf("%s: [%v, %v], want [%v, t0 + 90 s]", snap.Name(), snap.Start, snap.End, wantStart)
		}
	}
}

// On the real clock, whose readings carry wall and monotonic clocks read
// a few ns apart, a clipped window starts at the measure start's
// wall-clock reading exactly, not at End less the monotonic offset. The
// skew differs from reading to reading, so a few stores are tried.
func TestClippedStartOnRealClock(t *testing.T) {
	for i := range 200 {
		s, err := NewStore(target, Settings{Windows: []time.Duration{time.Hour}, CacheTTL: -1, Clock: clock.Real()})
		if err != nil {
			t.Fatal(err)
		}
		s.State(target, probe.StateReady, 0)
		start, _ := s.MeasureStart()
		snap := s.Current(time.Hour)
		if !snap.Measuring || !snap.Start.Equal(start) || snap.Start.After(snap.End) {
			t.Fatalf("store %d: start %v end %v, want start = measure start %v",
				i, snap.Start.Format(time.RFC3339Nano), snap.End.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
		}
	}
}
