package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmprober/llmprober/slo"
)

// Values of --gate-inconclusive.
const (
	gateInconclusivePass = "pass"
	gateInconclusiveFail = "fail"
)

// The gate's failures: errGateBreached exits 1, errGateInconclusive 3.
var (
	errGateBreached     = errors.New("SLO gate failed")
	errGateInconclusive = errors.New("SLO gate inconclusive")
)

// gateExitInconclusive is the exit status of an inconclusive gate.
const gateExitInconclusive = 3

// gateOutcome sums the verdicts of a benchmark's objective sets: breached
// when any is, inconclusive when none is but some are, met otherwise; an
// inconclusive outcome becomes met or breached as --gate-inconclusive says.
func gateOutcome(verdicts []slo.Judgement, inconclusive string) slo.Judgement {
	out := slo.Met
	for _, v := range verdicts {
		if v == slo.Breached {
			return slo.Breached
		}
		if v == slo.Inconclusive {
			out = slo.Inconclusive
		}
	}
	switch {
	case out != slo.Inconclusive:
		return out
	case inconclusive == gateInconclusivePass:
		return slo.Met
	case inconclusive == gateInconclusiveFail:
		return slo.Breached
	}
	return out
}

// gateResult is the gate's outcome over r's objective sets and the list
// of their verdicts ("default met, strict inconclusive").
func (r *benchResult) gateResult() (slo.Judgement, string) {
	var verdicts []slo.Judgement
	var parts []string
	for _, a := range r.snap.Objectives {
		verdicts = append(verdicts, a.Verdict)
		parts = append(parts, a.Objective+" "+a.Verdict.String())
	}
	return gateOutcome(verdicts, r.plan.flags.gateInconclusive), strings.Join(parts, ", ")
}

// gate prints the gate's line and returns its error: nil when met,
// errGateBreached or errGateInconclusive.
func (r *benchResult) gate(w io.Writer) error {
	outcome, parts := r.gateResult()
	fmt.Fprintf(w, "gate: %s (%s)\n", outcome, parts)
	switch outcome {
	case slo.Breached:
		return fmt.Errorf("%w: %s", errGateBreached, parts)
	case slo.Inconclusive:
		return fmt.Errorf("%w: %s", errGateInconclusive, parts)
	}
	return nil
}
