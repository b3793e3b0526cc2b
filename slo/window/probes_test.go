package window

import (
	"slices"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// TestProbesPerWindow files scheduler events on a 1m/1h store (buckets of
// 5 s) with a 10 s warmup, and reads them per window at 2 min.
func TestProbesPerWindow(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Minute, time.Hour}, Warmup: 10 * time.Second})
	event := func(ms int64, f func()) {
		clk.Set(at(ms))
		f()
	}
	// In the warmup (before 10 s): counted nowhere.
	event(5000, func() { s.Scheduled(target); s.Started(target) })
	// At 20 s: 3 due, 2 sent, 1 dropped for a full queue.
	for range 2 {
		event(20000, func() { s.Scheduled(target); s.Started(target) })
	}
	event(20000, func() { s.Scheduled(target); s.Dropped(target, probe.DropQueueFull) })
	// At 62 s (measure time 52 s, bucket [50 s, 55 s)): 1 due and dropped
	// at shutdown; the 1m window read at 2 min starts at 110 s − 60 s = 50 s
	// of measure time, the start of that bucket.
	event(62000, func() { s.Scheduled(target); s.Dropped(target, probe.DropShutdown) })
	// At 69 s (measure time 59 s): 1 due and sent.
	event(69000, func() { s.Scheduled(target); s.Started(target) })
	clk.Set(at(120000))
	snaps := s.Snapshots(clk.Now())
	for i, want := range []Probes{
		{Scheduled: 2, Sent: 1, Dropped: []int64{0, 1}},
		{Scheduled: 5, Sent: 3, Dropped: []int64{1, 1}},
	} {
		got := snaps[i].Probes
		if got.Scheduled != want.Scheduled || got.Sent != want.Sent || !slices.Equal(got.Dropped, want.Dropped) {
			t.Errorf("%s: %+v, want %+v", snaps[i].Name(), got, want)
		}
	}
	if n := snaps[1].Probes.DroppedBy(probe.DropQueueFull); n != 1 {
		t.Errorf("1h window: %d dropped for queue_full, want 1", n)
	}
	// Before measuring began, nothing (one zero per reason).
	fresh, _ := NewStore("fresh", Settings{Clock: clk})
	if p := fresh.Snapshot(clk.Now(), time.Minute).Probes; p.Scheduled != 0 || !slices.Equal(p.Dropped, []int64{0, 0}) {
		t.Errorf("before measuring: %+v", p)
	}
}
