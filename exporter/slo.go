package exporter

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// SLO instrument names.
const (
	// InstrumentSLOEvaluated counts requests evaluated against an objective
	// set (finished, not excluded), by target and objective.
	InstrumentSLOEvaluated = "llmprober.slo.requests.evaluated"
	// InstrumentSLOConforming counts evaluated requests that met every
	// threshold of an objective set.
	InstrumentSLOConforming = "llmprober.slo.requests.conforming"
	// InstrumentSLONonConforming counts evaluated requests that did not
	// conform, by reason (one reason per request).
	InstrumentSLONonConforming = "llmprober.slo.requests.nonconforming"
	// InstrumentSLOObjectiveRatio is the target attainment of an objective set.
	InstrumentSLOObjectiveRatio = "llmprober.slo.objective_ratio"
	// InstrumentSLOPeriod is the SLO period of an objective set (s).
	InstrumentSLOPeriod = "llmprober.slo.period"
)

// labelObjective is the objective set label.
const labelObjective = "objective"

// Specs of the SLO instruments.
var (
	perObjective      = func(t *Target) int { return len(t.Objectives) }
	specSLOEvaluated  = spec{Name: InstrumentSLOEvaluated, Unit: "{request}", Description: "Requests evaluated against the objective set: successful and errored ones, except those the set cannot apply to.", Sets: perObjective}
	specSLOConforming = spec{Name: InstrumentSLOConforming, Unit: "{request}", Description: "Evaluated requests whose every configured quantity was at most its threshold.", Sets: perObjective}
	specSLONonConform = spec{Name: InstrumentSLONonConforming, Unit: "{request}", Description: "Evaluated requests that did not conform, by reason: the error type, insufficient_output, or the first breached quantity in the order ttft, ttfot, itl, tpot, latency, scheduled_latency.",
		Sets: func(t *Target) int {
			n := 0
			for i := range t.Objectives {
				n += len(t.Objectives[i].Reasons())
			}
			return n
		}}
	specSLOObjective    = spec{Name: InstrumentSLOObjectiveRatio, Description: "Target attainment of the objective set: the ratio of conforming to evaluated requests it should reach over its period.", Sets: perObjective}
	specSLOPeriod       = spec{Name: InstrumentSLOPeriod, Unit: "s", Description: "SLO period of the objective set.", Sets: perObjective}
	sloInstrumentByKind = map[slo.Quantity]string{
		slo.TTFT: InstrumentTTFT, slo.TTFOT: InstrumentTTFOT, slo.ITL: InstrumentITL, slo.TPOT: InstrumentTPOT,
		slo.Latency: InstrumentOperationDuration, slo.ScheduledLatency: InstrumentScheduledLatency,
	}
)

// SLOBoundaries returns the extra histogram boundaries (Options.ExtraBoundaries)
// that make every threshold of objectives a bucket boundary of the histogram
// of its quantity: request latency is gen_ai.client.operation.duration.
func SLOBoundaries(objectives []slo.Objective) map[string][]float64 {
	out := map[string][]float64{}
	for _, o := range objectives {
		for _, t := range o.Thresholds {
			name := sloInstrumentByKind[t.Quantity]
			out[name] = mergeBoundaries(out[name], []float64{t.Max.Seconds()})
		}
	}
	return out
}

// sloInstruments are the SLO counters and gauges.
type sloInstruments struct {
	evaluated, conforming, nonconforming metric.Int64Counter
	objective, period                    metric.Float64ObservableGauge
}

// sloInstruments creates the SLO instruments.
func (b *builder) sloInstruments() sloInstruments {
	s := sloInstruments{
		evaluated:     b.counter(specSLOEvaluated),
		conforming:    b.counter(specSLOConforming),
		nonconforming: b.counter(specSLONonConform),
	}
	var err error
	s.objective, err = b.meter.Float64ObservableGauge(specSLOObjective.Name, metric.WithDescription(specSLOObjective.Description))
	b.fail(specSLOObjective.Name, err)
	s.period, err = b.meter.Float64ObservableGauge(specSLOPeriod.Name, metric.WithUnit(specSLOPeriod.Unit),
		metric.WithDescription(specSLOPeriod.Description))
	b.fail(specSLOPeriod.Name, err)
	return s
}

// objectiveAttrs holds one objective set of a target with its attribute sets.
type objectiveAttrs struct {
	objective slo.Objective
	set       metric.MeasurementOption
	reasons   map[string]metric.MeasurementOption
	other     metric.MeasurementOption
}

// newObjectiveAttrs precomputes the attribute sets of every objective set of t.
func newObjectiveAttrs(t Target) []*objectiveAttrs {
	tk := attribute.String(labelTarget, t.Name)
	out := make([]*objectiveAttrs, 0, len(t.Objectives))
	for _, o := range t.Objectives {
		ok := attribute.String(labelObjective, o.Name)
		a := &objectiveAttrs{objective: o, set: opt(tk, ok), reasons: map[string]metric.MeasurementOption{}}
		for _, r := range o.Reasons() {
			a.reasons[r] = opt(tk, ok, attribute.String(labelReason, r))
		}
		a.other = a.reasons[slo.ReasonErrored]
		out = append(out, a)
	}
	return out
}

// initSLOSeries creates every SLO counter series of ts at 0.
func (in *instruments) initSLOSeries(ctx context.Context, ts *targetState) {
	for _, a := range ts.objectives {
		in.slo.evaluated.Add(ctx, 0, a.set)
		in.slo.conforming.Add(ctx, 0, a.set)
		for _, r := range a.objective.Reasons() {
			in.slo.nonconforming.Add(ctx, 0, a.reasons[r])
		}
	}
}

// recordSLO evaluates rec against every objective set of ts and counts it.
func (in *instruments) recordSLO(ctx context.Context, ts *targetState, rec *probe.Record) {
	for _, a := range ts.objectives {
		res := a.objective.Evaluate(rec)
		if res.Verdict == slo.Excluded {
			continue
		}
		in.slo.evaluated.Add(ctx, 1, a.set)
		if res.Verdict == slo.Conforming {
			in.slo.conforming.Add(ctx, 1, a.set)
			continue
		}
		opt, ok := a.reasons[res.Reason]
		if !ok {
			opt = a.other
		}
		in.slo.nonconforming.Add(ctx, 1, opt)
	}
}

// observeSLO reports the target attainment and period of every objective
// set into in.
func (o *Observer) observeSLO(in *instruments, obs metric.Observer) {
	for _, ts := range o.targets.all() {
		for _, a := range ts.objectives {
			obs.ObserveFloat64(in.slo.objective, a.objective.Attainment, a.set)
			obs.ObserveFloat64(in.slo.period, a.objective.Period.Seconds(), a.set)
		}
	}
}

// sloGauges lists the SLO observable gauges for callback registration.
func (s *sloInstruments) gauges() []metric.Observable {
	return []metric.Observable{s.objective, s.period}
}

// validateObjectives checks that t's objective sets have distinct names
// and at least one threshold each.
func validateObjectives(t Target) error {
	seen := map[string]bool{}
	for i, o := range t.Objectives {
		if o.Name == "" || seen[o.Name] || len(o.Thresholds) == 0 {
			return fmt.Errorf("target %q: objective set %d has no name, a duplicate name or no threshold", t.Name, i)
		}
		seen[o.Name] = true
	}
	return nil
}
