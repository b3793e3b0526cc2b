package probe

import (
	"hash/fnv"
	"time"
)

// Phased is an open-loop strategy whose schedule is shifted by Phase:
// every request that Strategy gives an arrival time is due Phase later,
// and that later time is its targeted start, so dispatch delay and
// scheduled latency count from it. Unscheduled requests and the other
// decisions pass through unchanged.
type Phased struct {
	Strategy
	// Phase is the shift, ≥ 0.
	Phase time.Duration
}

// Next implements Strategy: Strategy's decision, shifted by Phase.
func (p Phased) Next(n uint64) Decision {
	d := p.Strategy.Next(n)
	if d.Kind == Due && !d.Unscheduled {
		d.At += p.Phase
	}
	return d
}

// SpreadPhase returns the phase that spreads targets sharing a schedule
// over its interval, as Prometheus spreads its scrapes: the 64-bit FNV-1a
// hash of name modulo interval, in [0, interval); 0 when interval is not
// positive. It depends on the name alone, so a target keeps its phase
// across restarts and replicas.
func SpreadPhase(name string, interval time.Duration) time.Duration {
	if interval <= 0 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return time.Duration(h.Sum64() % uint64(interval))
}
