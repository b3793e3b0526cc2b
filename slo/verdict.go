package slo

import (
	"time"

	"github.com/llmprober/llmprober/probe"
)

// Verdict is what a request counts as under one objective set.
type Verdict int

// The verdicts.
const (
	// Excluded requests are not evaluated: incomplete, or not evaluable.
	Excluded Verdict = iota
	// Conforming requests met every threshold.
	Conforming
	// NonConforming requests are errored, too short, or breached a threshold.
	NonConforming
)

// String returns "excluded", "conforming" or "nonconforming".
func (v Verdict) String() string {
	switch v {
	case Conforming:
		return "conforming"
	case NonConforming:
		return "nonconforming"
	}
	return "excluded"
}

// Result is the verdict of one request under one objective set; Reason is
// set for NonConforming only (see the package documentation).
type Result struct {
	Verdict Verdict
	Reason  string
}

// Evaluate judges r against o with the precedence in the package documentation.
func (o *Objective) Evaluate(r *probe.Record) Result {
	switch r.Outcome {
	case probe.Successful:
	case probe.Errored:
		reason := string(r.ErrorType)
		if reason == "" {
			reason = ReasonErrored
		}
		return Result{Verdict: NonConforming, Reason: reason}
	default:
		return Result{Verdict: Excluded}
	}
	for _, t := range o.Thresholds {
		if !applies(t.Quantity, r) {
			return Result{Verdict: Excluded}
		}
	}
	if !r.HasOutput() {
		return Result{Verdict: NonConforming, Reason: ReasonInsufficientOutput}
	}
	breached := ""
	for _, t := range o.Thresholds {
		v, ok := measure(t.Quantity, r)
		if !ok {
			return Result{Verdict: NonConforming, Reason: ReasonInsufficientOutput}
		}
		if v > t.Max && breached == "" {
			breached = string(t.Quantity)
		}
	}
	if breached != "" {
		return Result{Verdict: NonConforming, Reason: breached}
	}
	return Result{Verdict: Conforming}
}

// applies reports whether q can be measured on r at all: the streaming
// quantities need a streamed request, scheduled latency an arrival schedule.
func applies(q Quantity, r *probe.Record) bool {
	switch q {
	case TTFT, TTFOT, ITL:
		return r.Stream
	case ScheduledLatency:
		return !r.TargetedStart.IsZero()
	}
	return true
}

// measure returns quantity q of r and whether it is defined.
func measure(q Quantity, r *probe.Record) (time.Duration, bool) {
	switch q {
	case TTFT:
		return r.TTFT()
	case TTFOT:
		return r.TTFOT()
	case ITL:
		return r.ITL()
	case TPOT:
		return r.TPOT()
	case Latency:
		return r.Latency()
	case ScheduledLatency:
		return r.ScheduledLatency()
	}
	return 0, false
}
