package exporter

import (
	"time"

	"github.com/llmprober/llmprober/probe"
)

// TargetStatus is a snapshot of one target as the Observer saw it.
type TargetStatus struct {
	// Target is the static description given to NewObserver (Provider defaulted).
	Target Target
	// State is the current start-up state; Waited the time spent in the gate
	// as of the last state change.
	State  probe.TargetState
	Waited time.Duration
	// ReachedReady reports whether the target has ever been in state ready.
	ReachedReady bool
	// Probed reports whether at least one request has finished (any outcome).
	Probed bool
	// Counts are the finished requests by outcome since start.
	Counts map[probe.Outcome]uint64
	// Probes are the requests that became due, were sent and were dropped
	// since start.
	Probes ProbeCounts
	// Recent are the last finished requests, newest first, at most RecentPerTarget.
	Recent []ProbeSummary
}

// ProbeCounts are a target's scheduler counts since the process started.
type ProbeCounts struct {
	// Scheduled counts the requests that became due.
	Scheduled uint64
	// Sent counts the requests sent: finished ones and those in flight.
	Sent uint64
	// Dropped counts the due requests never sent, by reason; every reason
	// of probe.DropReasons is present.
	Dropped map[probe.DropReason]uint64
}

// newProbeCounts returns zero counts with every drop reason present.
func newProbeCounts() ProbeCounts {
	p := ProbeCounts{Dropped: map[probe.DropReason]uint64{}}
	for _, r := range probe.DropReasons {
		p.Dropped[r] = 0
	}
	return p
}

// clone copies p.
func (p ProbeCounts) clone() ProbeCounts {
	out := p
	out.Dropped = make(map[probe.DropReason]uint64, len(p.Dropped))
	for r, n := range p.Dropped {
		out.Dropped[r] = n
	}
	return out
}

// DroppedTotal is the sum of Dropped.
func (p ProbeCounts) DroppedTotal() uint64 {
	var n uint64
	for _, d := range p.Dropped {
		n += d
	}
	return n
}

// Ready reports whether the target has reached state ready and finished its
// first request (any outcome).
func (s *TargetStatus) Ready() bool { return s.ReachedReady && s.Probed }

// Status returns a snapshot of every target, in the order given to NewObserver.
func (o *Observer) Status() []TargetStatus {
	out := make([]TargetStatus, 0, len(o.targets))
	for _, ts := range o.targets {
		out = append(out, ts.snapshot())
	}
	return out
}

// snapshot copies the target's status under its lock.
func (ts *targetState) snapshot() TargetStatus {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	counts := make(map[probe.Outcome]uint64, len(probe.Outcomes))
	for _, oc := range probe.Outcomes {
		counts[oc] = ts.counts[oc]
	}
	return TargetStatus{
		Target: ts.target, State: ts.state, Waited: ts.waited, ReachedReady: ts.reachedReady,
		Probed: ts.probed, Counts: counts, Probes: ts.probes.clone(), Recent: ts.recent.newestFirst(),
	}
}

// NotReady returns the names of the targets that are not Ready, in order;
// empty when every target is.
func (o *Observer) NotReady() []string {
	var names []string
	for _, ts := range o.targets {
		ts.mu.Lock()
		ready := ts.reachedReady && ts.probed
		ts.mu.Unlock()
		if !ready {
			names = append(names, ts.target.Name)
		}
	}
	return names
}
