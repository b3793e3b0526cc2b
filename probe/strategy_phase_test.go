package probe

import (
	"sort"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

// TestSpreadPhase checks the phase against the FNV-1a hashes worked out by
// hand (offset basis 0xcbf29ce484222325, prime 0x100000001b3): "a" hashes
// to 0xaf63dc4c8601ec8c, 12637415762706557068, which is 555641996 ns
// modulo 10 s.
func TestSpreadPhase(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval time.Duration
		want     time.Duration
	}{
		{"a", 10 * time.Second, 555641996},
		{"vllm", 10 * time.Second, 5554860364},
		{"t0001", 5 * time.Second, 1590952800},
		{"t0002", 5 * time.Second, 125837433},
		{"", time.Second, 346656037},
		{"a", 0, 0},
		{"a", -time.Second, 0},
	} {
		if got := SpreadPhase(tc.name, tc.interval); got != tc.want {
			t.Errorf("SpreadPhase(%q, %v) = %d, want %d", tc.name, tc.interval, got, tc.want)
		}
	}
}

// TestPhasedShiftsTheSchedule: every scheduled request is due Phase later;
// an unscheduled one (a trace row without a timestamp) and the other
// decisions are left alone.
func TestPhasedShiftsTheSchedule(t *testing.T) {
	c, _ := NewConstant(4, 0)
	p := Phased{Strategy: c, Phase: 100 * time.Millisecond}
	for n, want := range []time.Duration{100 * time.Millisecond, 350 * time.Millisecond, 600 * time.Millisecond} {
		if d := p.Next(uint64(n)); d.Kind != Due || d.At != want {
			t.Errorf("request %d: %+v, want due at %v", n, d, want)
		}
	}
	if !p.HasSchedule() || p.Name() != "constant" {
		t.Errorf("Phased hides its strategy: %v %q", p.HasSchedule(), p.Name())
	}
	for _, d := range []Decision{{Kind: Due, Unscheduled: true}, {Kind: Stop}, {Kind: AwaitCompletion}} {
		if got := (Phased{Strategy: fixedDecision(d), Phase: time.Second}).Next(0); got != d {
			t.Errorf("Next = %+v, want %+v unchanged", got, d)
		}
	}
}

// fixedDecision is a strategy that always decides the same.
type fixedDecision Decision

func (fixedDecision) Name() string                             { return "fixed" }
func (fixedDecision) HasSchedule() bool                        { return true }
func (f fixedDecision) Next(uint64) Decision                   { return Decision(f) }
func (fixedDecision) Issue(uint64, Decision)                   {}
func (fixedDecision) Completed(uint64, *Record, time.Duration) {}

// TestPhasedTargetedStart: under a prober the phase is part of the
// targeted start. With a phase of 100 ms at 4 requests/s, request 0 is
// targeted at 100 ms and request 1 at 350 ms; sent at 150 ms and 350 ms,
// their dispatch delays are 50 ms and 0.
func TestPhasedTargetedStart(t *testing.T) {
	clk := clock.NewFake(t0)
	ev := newEvents()
	c, _ := NewConstant(4, 0)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: Phased{Strategy: c, Phase: 100 * time.Millisecond}, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: &fakeBackend{clk: clk}, Observer: ev, Clock: clk, MaxConcurrency: 2,
	})
	waitFor(t, "timer of request 0", func() bool { return clk.Pending() == 1 })
	clk.Advance(150 * time.Millisecond)
	waitFor(t, "request 0", func() bool { _, _, _, f := ev.snapshot(); return len(f) == 1 })
	waitFor(t, "timer of request 1", func() bool { return clk.Pending() == 1 })
	clk.Advance(200 * time.Millisecond)
	waitFor(t, "request 1", func() bool { _, _, _, f := ev.snapshot(); return len(f) == 2 })
	_ = stop()
	_, _, _, fin := ev.snapshot()
	sort.Slice(fin, func(i, j int) bool { return fin[i].Seq < fin[j].Seq })
	for i, want := range []struct{ target, delay time.Duration }{{100 * time.Millisecond, 50 * time.Millisecond}, {350 * time.Millisecond, 0}} {
		d, ok := fin[i].DispatchDelay()
		if got := fin[i].TargetedStart.Sub(t0); got != want.target || !ok || d != want.delay {
			t.Errorf("request %d: targeted %v, dispatch delay %v (%v); want %v, %v", i, got, d, ok, want.target, want.delay)
		}
	}
}
