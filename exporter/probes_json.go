package exporter

import (
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// apiProbes is what the scheduler did: requests due, sent and dropped by
// reason (every reason of probe.DropReasons, in order).
type apiProbes struct {
	Scheduled uint64        `json:"scheduled"`
	Sent      uint64        `json:"sent"`
	Dropped   orderedObject `json:"dropped"`
}

// newAPIProbes formats a target's counts since start.
func newAPIProbes(p ProbeCounts) *apiProbes {
	out := &apiProbes{Scheduled: p.Scheduled, Sent: p.Sent, Dropped: orderedObject{}}
	for _, r := range probe.DropReasons {
		out.Dropped = append(out.Dropped, keyValue{string(r), p.Dropped[r]})
	}
	return out
}

// newAPIWindowProbes formats a window's counts; nil before measuring.
func newAPIWindowProbes(s *window.Snapshot) *apiProbes {
	if !s.Measuring {
		return nil
	}
	out := &apiProbes{Scheduled: uint64(s.Probes.Scheduled), Sent: uint64(s.Probes.Sent), Dropped: orderedObject{}}
	for _, r := range probe.DropReasons {
		out.Dropped = append(out.Dropped, keyValue{string(r), uint64(s.Probes.DroppedBy(r))})
	}
	return out
}
