package wiring

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe"
)

// TestOpenLoopSchedulesAreSpread: constant and Poisson targets start at
// their phase, the FNV-1a hash of the name ("a": 0xaf63dc4c8601ec8c)
// modulo their interval, 1/rate capped at an hour; closed-loop targets
// are not shifted.
func TestOpenLoopSchedulesAreSpread(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sched config.Schedule
		first time.Duration // request 0's slot
		next  time.Duration // request 1's slot
	}{
		// 0xaf63dc4c8601ec8c mod 10 s = 555641996 ns.
		{"constant at 0.1/s", config.Schedule{Strategy: config.StrategyConstant, Rate: 0.1}, 555641996, 10555641996},
		// mod 2 s: the same remainder.
		{"constant at 0.5/s", config.Schedule{Strategy: config.StrategyConstant, Rate: 0.5}, 555641996, 2555641996},
		// 1/rate is 11.6 days, capped at 1 h: mod 3600 s = 2000.555641996 s.
		{"constant at 1e-6/s", config.Schedule{Strategy: config.StrategyConstant, Rate: 1e-6}, 2000555641996, 2000555641996 + 1e15},
		{"synchronous", config.Schedule{Strategy: config.StrategySynchronous}, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newStrategy(&tc.sched, "a")
			if err != nil {
				t.Fatal(err)
			}
			p, phased := s.(probe.Phased)
			if tc.first < 0 {
				if phased {
					t.Errorf("closed loop shifted: %+v", p)
				}
				return
			}
			if d0, d1 := s.Next(0), s.Next(1); d0.At != tc.first || d1.At != tc.next {
				t.Errorf("slots %v, %v; want %v, %v", d0.At, d1.At, tc.first, tc.next)
			}
		})
	}
	s, err := newStrategy(&config.Schedule{Strategy: config.StrategyPoisson, Rate: 0.1, Seed: 7}, "a")
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Next(0); d.At != 555641996 {
		t.Errorf("Poisson request 0 at %v, want its phase 555641996 ns", d.At)
	}
}
