package probe

import (
	"context"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

// Gate is a target's start-up readiness gate: probing begins once Check
// succeeds, so a prober started beside a loading server does not burn its
// error budget. The time spent waiting is reported with each state change.
type Gate struct {
	// Check returns nil when the endpoint is ready; it must honour ctx.
	Check func(ctx context.Context) error
	// Interval is the time between checks; default 2s.
	Interval time.Duration
	// StartupTimeout is how long the target may take before it is reported
	// as failed; checks go on after it. 0 means never report failed.
	StartupTimeout time.Duration
}

// Wait checks until the endpoint is ready or ctx ends, reporting states to obs.
func (g *Gate) Wait(ctx context.Context, target string, clk clock.Clock, obs Observer) error {
	interval := g.Interval
	if interval <= 0 {
		interval = 2 * time.Second
	}
	start := clk.Now()
	state := StateWaiting
	obs.State(target, state, 0)
	for {
		if err := g.Check(ctx); err == nil {
			obs.State(target, StateReady, clk.Now().Sub(start))
			return nil
		}
		waited := clk.Now().Sub(start)
		if state == StateWaiting && g.StartupTimeout > 0 && waited >= g.StartupTimeout {
			state = StateFailed
		}
		obs.State(target, state, waited)
		timer := clk.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C():
		}
	}
}
