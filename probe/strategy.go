package probe

import (
	"fmt"
	"math"
	"time"
)

// DecisionKind says what a strategy wants next.
type DecisionKind int

// Decision kinds.
const (
	// Due: the next request is due at Decision.At.
	Due DecisionKind = iota
	// AwaitCompletion: nothing is due until a request completes (closed loop).
	AwaitCompletion
	// Stop: the strategy sends no more requests.
	Stop
)

// Decision is a strategy's answer to "when is the next request due?".
type Decision struct {
	Kind DecisionKind
	// At is the targeted start of the next request, as an offset from the
	// run's start; meaningful only when Kind is Due.
	At time.Duration
}

// Strategy decides when each request of a target is due. Open-loop strategies
// (constant, and later Poisson and trace replay) answer from the absolute
// schedule alone; closed-loop strategies also use the completion feedback.
// The prober serialises all calls.
type Strategy interface {
	// Name is the strategy's configuration name.
	Name() string
	// HasSchedule reports whether the strategy defines an arrival schedule, so
	// that dispatch delay and scheduled latency are defined for its requests.
	HasSchedule() bool
	// Next returns the decision for request n (0-based, n requests already issued).
	Next(n uint64) Decision
	// Completed tells the strategy that a request ended, at offset `at` from the run's start.
	Completed(rec *Record, at time.Duration)
}

// Constant is the constant-rate open-loop strategy: request n is due at n/Rate
// seconds after the run's start, on an absolute schedule, so lateness never
// accumulates into drift.
type Constant struct {
	// Rate is in requests per second; > 0.
	Rate float64
}

// NewConstant returns a constant-rate strategy; rate must be positive and finite.
func NewConstant(rate float64) (*Constant, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("rate must be a positive number of requests per second, got %v", rate)
	}
	return &Constant{Rate: rate}, nil
}

// Name implements Strategy.
func (*Constant) Name() string { return "constant" }

// HasSchedule implements Strategy: constant rate defines an arrival schedule.
func (*Constant) HasSchedule() bool { return true }

// Next implements Strategy: request n is due at n/Rate seconds.
func (c *Constant) Next(n uint64) Decision {
	return Decision{Kind: Due, At: offset(float64(n) / c.Rate)}
}

// Completed implements Strategy; an open-loop strategy ignores completions.
func (*Constant) Completed(*Record, time.Duration) {}

// offset converts seconds to a Duration, rounding to the nanosecond and
// saturating instead of overflowing.
func offset(seconds float64) time.Duration {
	ns := math.Round(seconds * 1e9)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}
