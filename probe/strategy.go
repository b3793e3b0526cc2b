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
	// At is the slot time of the next request, as an offset from the run's
	// start; meaningful only when Kind is Due. Under a strategy with an
	// arrival schedule it becomes the request's targeted start.
	At time.Duration
	// Stream is the closed-loop stream the request belongs to, from 0; always
	// 0 under open-loop strategies. A conversation workload keeps one
	// conversation going per stream.
	Stream int
	// Unscheduled marks a request without an arrival time of its own (a trace
	// row without a timestamp): the prober issues it once a concurrency slot
	// is free and no request waits for one, never drops it for a full queue,
	// and gives it no targeted start, so none of the dispatch-delay quantities
	// are defined for it. At is then 0.
	Unscheduled bool
}

// Strategy decides when each request of a target is due. Open-loop
// strategies (constant, Poisson, trace replay) answer from the absolute
// schedule alone, as pure functions of n; closed-loop strategies
// (synchronous, concurrent, throughput) also use the completion feedback.
// The prober serialises all calls, so implementations need no locking.
type Strategy interface {
	// Name is the strategy's configuration name.
	Name() string
	// HasSchedule reports whether the strategy defines an arrival schedule, so
	// that dispatch delay and scheduled latency are defined for its requests.
	// Strategies without one are closed-loop: the prober asks them again
	// whenever a request ends.
	HasSchedule() bool
	// Next returns the decision for request n (0-based, n requests already
	// issued). It may be asked more than once for the same n, and must not
	// change what the strategy has decided before: only Issue commits.
	Next(n uint64) Decision
	// Issue tells the strategy that request n was issued as d, the last
	// answer of Next(n).
	Issue(n uint64, d Decision)
	// Completed tells the strategy that request n ended, at offset at from
	// the run's start; rec is nil when the request was dropped unsent.
	Completed(n uint64, rec *Record, at time.Duration)
}

// Constant is the constant-rate open-loop strategy on an absolute schedule,
// so lateness never accumulates into drift. Without a rampup, request n is
// due at n/Rate seconds after the run's start. With a rampup of R seconds
// the rate grows linearly from 0 to Rate over the first R seconds, so that
// the expected number of requests sent by time t is Rate·t²/(2R) for t ≤ R:
// request n is due at √(2·R·n/Rate) while n ≤ Rate·R/2, and at n/Rate + R/2
// afterwards (the plain schedule shifted by R/2).
type Constant struct {
	// Rate is in requests per second; > 0 and finite.
	Rate float64
	// Rampup is the time over which the rate rises from 0 to Rate; ≥ 0.
	Rampup time.Duration
}

// NewConstant returns a constant-rate strategy; rate must be positive and
// finite, rampup not negative.
func NewConstant(rate float64, rampup time.Duration) (*Constant, error) {
	if err := checkRate(rate); err != nil {
		return nil, err
	}
	if rampup < 0 {
		return nil, fmt.Errorf("rampup must not be negative, got %v", rampup)
	}
	return &Constant{Rate: rate, Rampup: rampup}, nil
}

// checkRate accepts a positive, finite rate.
func checkRate(rate float64) error {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return fmt.Errorf("rate must be a positive number of requests per second, got %v", rate)
	}
	return nil
}

// Name implements Strategy.
func (*Constant) Name() string { return "constant" }

// HasSchedule implements Strategy: constant rate defines an arrival schedule.
func (*Constant) HasSchedule() bool { return true }

// Next implements Strategy: see Constant for the schedule.
func (c *Constant) Next(n uint64) Decision {
	x, r, ramp := float64(n), c.Rate, c.Rampup.Seconds()
	if ramp > 0 && x <= r*ramp/2 {
		return Decision{Kind: Due, At: offset(math.Sqrt(2 * ramp * x / r))}
	}
	return Decision{Kind: Due, At: offset(x/r + ramp/2)}
}

// Issue implements Strategy; an open-loop strategy keeps no state.
func (*Constant) Issue(uint64, Decision) {}

// Completed implements Strategy; an open-loop strategy ignores completions.
func (*Constant) Completed(uint64, *Record, time.Duration) {}

// offset converts seconds to a Duration, rounding to the nanosecond and
// saturating instead of overflowing.
func offset(seconds float64) time.Duration {
	ns := math.Round(seconds * 1e9)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ns)
}
