package slo

import (
	"time"

	"github.com/llmprober/llmprober/probe"
)

// Quantity names a per-request quantity an objective set can bound; the
// value is its configuration key and its reason label.
type Quantity string

// The quantities, in the fixed order used to pick a reason.
const (
	TTFT             Quantity = "ttft"
	TTFOT            Quantity = "ttfot"
	ITL              Quantity = "itl"
	TPOT             Quantity = "tpot"
	Latency          Quantity = "latency"
	ScheduledLatency Quantity = "scheduled_latency"
)

// Quantities lists every quantity in the fixed order.
var Quantities = []Quantity{TTFT, TTFOT, ITL, TPOT, Latency, ScheduledLatency}

// Reasons of non-conformance besides error types and quantities.
const (
	// ReasonErrored is the reason of an errored request without an error type.
	ReasonErrored = "errored"
	// ReasonInsufficientOutput is the reason of a successful reply too short
	// to define a configured quantity.
	ReasonInsufficientOutput = "insufficient_output"
)

// Threshold bounds one quantity: a request conforms to it when the
// quantity is at most Max.
type Threshold struct {
	Quantity Quantity
	Max      time.Duration
}

// Objective is one objective set of a target.
type Objective struct {
	// Name identifies the set in metrics and rules.
	Name string
	// Thresholds are the bounded quantities in the order of Quantities; never empty.
	Thresholds []Threshold
	// Attainment is the target ratio of conforming to evaluated requests, in (0, 1).
	Attainment float64
	// Period is the SLO period.
	Period time.Duration
}

// Reasons lists every reason a request can be non-conforming to o, in a
// fixed order: the error types, "errored", "insufficient_output", then
// o's quantities. Counters by reason are created with these at zero.
func (o *Objective) Reasons() []string {
	out := make([]string, 0, len(probe.ErrorTypes)+2+len(o.Thresholds))
	for _, e := range probe.ErrorTypes {
		out = append(out, string(e))
	}
	out = append(out, ReasonErrored, ReasonInsufficientOutput)
	for _, t := range o.Thresholds {
		out = append(out, string(t.Quantity))
	}
	return out
}
