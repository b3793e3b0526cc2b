package exporter

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/llmprober/llmprober/slo/window"
)

// OpenTelemetry names of the window SLO gauges, per target, window and
// objective set (labels target, window, objective); the Prometheus name is
// in the comment.
const (
	// InstrumentWindowSLOAttainment is conforming ÷ evaluated requests of
	// the window: llmprober_window_slo_attainment, with its Wilson interval
	// in llmprober_window_slo_attainment_ci_lower and _ci_upper.
	InstrumentWindowSLOAttainment = "llmprober.window.slo.attainment"
	// InstrumentWindowSLOEvaluated counts the requests of the window the
	// objective set evaluated: llmprober_window_slo_evaluated_requests.
	InstrumentWindowSLOEvaluated = "llmprober.window.slo.evaluated_requests"
	// InstrumentWindowGoodput is conforming requests per second:
	// llmprober_window_goodput_requests_per_second.
	InstrumentWindowGoodput = "llmprober.window.goodput.requests"
	// InstrumentWindowTokenGoodput is output tokens of conforming requests
	// per second: llmprober_window_goodput_output_tokens_per_second.
	InstrumentWindowTokenGoodput = "llmprober.window.goodput.output_tokens"
)

// windowSLOInstruments are the window SLO gauges.
type windowSLOInstruments struct {
	attainment, attainmentLo, attainmentHi, goodput, tokenGoodput metric.Float64ObservableGauge
	evaluated                                                     metric.Int64ObservableGauge
}

// newWindowSLOInstruments creates the window SLO gauges with the constructors of
// newWindowInstruments.
func newWindowSLOInstruments(gauge func(name, unit, desc string) metric.Float64ObservableGauge,
	intGauge func(name, unit, desc string) metric.Int64ObservableGauge) windowSLOInstruments {
	return windowSLOInstruments{
		attainment: gauge(InstrumentWindowSLOAttainment, "",
			"Conforming ÷ evaluated requests that ended in the window, per objective set; absent without evaluated requests."),
		attainmentLo: gauge(InstrumentWindowSLOAttainment+"_ci_lower", "",
			"Lower bound of the Wilson interval of the attainment; absent without evaluated requests or intervals."),
		attainmentHi: gauge(InstrumentWindowSLOAttainment+"_ci_upper", "",
			"Upper bound of the Wilson interval of the attainment; absent without evaluated requests or intervals."),
		evaluated: intGauge(InstrumentWindowSLOEvaluated, "{request}",
			"Requests that ended in the window and were evaluated (conforming or not) under the objective set."),
		goodput: gauge(InstrumentWindowGoodput, "{request}/s",
			"Conforming requests that ended in the window per second of its effective length, per objective set."),
		tokenGoodput: gauge(InstrumentWindowTokenGoodput, "{token}/s",
			"Output tokens of the conforming requests that ended in the window per second of its effective length."),
	}
}

// all lists the instruments.
func (in *windowSLOInstruments) all() []metric.Observable {
	return []metric.Observable{in.attainment, in.attainmentLo, in.attainmentHi, in.evaluated, in.goodput, in.tokenGoodput}
}

// windowObjectiveAttrs returns the attribute sets of the objective sets, in
// order, extending base (target and window).
func windowObjectiveAttrs(base []attribute.KeyValue, names []string) []metric.ObserveOption {
	out := make([]metric.ObserveOption, 0, len(names))
	for _, n := range names {
		kv := append(append([]attribute.KeyValue(nil), base...), attribute.String(labelObjective, n))
		out = append(out, metric.WithAttributeSet(attribute.NewSet(kv...)))
	}
	return out
}

// observeSLO reports the snapshot's attainment and goodput per objective
// set, with the attainment's interval when intervals.
func observeSLO(o metric.Observer, in *windowSLOInstruments, intervals bool, opts []metric.ObserveOption, snap *window.Snapshot) {
	for i, a := range snap.Objectives {
		if i >= len(opts) {
			return
		}
		opt := opts[i]
		o.ObserveInt64(in.evaluated, a.Evaluated, opt)
		observeFloat(o, in.attainment, a.Ratio, opt)
		if a.CI != nil && intervals {
			o.ObserveFloat64(in.attainmentLo, a.CI.Lo, opt)
			o.ObserveFloat64(in.attainmentHi, a.CI.Hi, opt)
		}
		observeFloat(o, in.goodput, a.Goodput, opt)
		observeFloat(o, in.tokenGoodput, a.OutputTokenGoodput, opt)
	}
}
