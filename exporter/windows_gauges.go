package exporter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// OpenTelemetry names of the window gauges. Each is exported per target
// and window (labels target, window); the Prometheus name is in the comment.
const (
	// InstrumentWindowLength is the effective window length (s):
	// llmprober_window_length_seconds.
	InstrumentWindowLength = "llmprober.window.length"
	// InstrumentWindowApproximate is 1 when the window's percentiles are
	// estimated from a sample, else 0: llmprober_window_approximate.
	InstrumentWindowApproximate = "llmprober.window.approximate"
	// InstrumentWindowFinishedRequests counts the requests that ended in the
	// window, by status: llmprober_window_finished_requests.
	InstrumentWindowFinishedRequests = "llmprober.window.finished_requests"
	// InstrumentWindowRequestRate is finished requests per second, by
	// status: llmprober_window_requests_per_second.
	InstrumentWindowRequestRate = "llmprober.window.requests"
	// InstrumentWindowOutputTokenRate is output tokens per second, by
	// status: llmprober_window_output_tokens_per_second.
	InstrumentWindowOutputTokenRate = "llmprober.window.output_tokens"
	// InstrumentWindowTotalTokenRate is prompt plus output tokens per
	// second, by status: llmprober_window_total_tokens_per_second.
	InstrumentWindowTotalTokenRate = "llmprober.window.total_tokens"
	// InstrumentWindowConcurrency is the time-weighted mean number of
	// requests in flight: llmprober_window_concurrency.
	InstrumentWindowConcurrency = "llmprober.window.concurrency"
	// InstrumentWindowPercentile is a percentile of a duration metric of
	// successful requests (s; labels metric, percentile):
	// llmprober_window_percentile_seconds, with its interval in
	// llmprober_window_percentile_ci_lower_seconds and _ci_upper_seconds.
	InstrumentWindowPercentile = "llmprober.window.percentile"
	// InstrumentWindowMean is the mean of a duration metric of successful
	// requests (s; label metric): llmprober_window_mean_seconds, with its
	// interval in llmprober_window_mean_ci_lower_seconds and _ci_upper_seconds.
	InstrumentWindowMean = "llmprober.window.mean"
	// InstrumentWindowTokensPercentile is a percentile of the prompt or output
	// token counts of successful requests: llmprober_window_tokens_percentile,
	// with _ci_lower and _ci_upper.
	InstrumentWindowTokensPercentile = "llmprober.window.tokens.percentile"
	// InstrumentWindowTokensMean is the mean prompt or output token count of
	// successful requests: llmprober_window_tokens_mean, with _ci_lower and
	// _ci_upper.
	InstrumentWindowTokensMean = "llmprober.window.tokens.mean"
)

// Label keys of the window gauges.
const (
	labelWindow     = "window"
	labelStatus     = "status"
	labelMetric     = "metric"
	labelPercentile = "percentile"
)

// WindowGauges selects the window gauges exported (the JSON API and the
// status pages have every figure). llmprober_window_length_seconds and
// llmprober_window_approximate are always exported.
type WindowGauges struct {
	// Percentiles exports llmprober_window_percentile_seconds at Levels.
	Percentiles bool
	// Means exports llmprober_window_mean_seconds.
	Means bool
	// Tokens exports llmprober_window_tokens_percentile (at Levels) and
	// llmprober_window_tokens_mean.
	Tokens bool
	// Rates exports the counts and rates by status and the concurrency.
	Rates bool
	// SLO exports the evaluated requests, attainment and goodput of every
	// objective set.
	SLO bool
	// Intervals exports the confidence-interval bounds of the percentiles,
	// means and attainment exported.
	Intervals bool
	// Levels are the percentile levels exported, in order.
	Levels []stats.Level
}

// AllWindowGauges exports every family at p50, p90, p95, p99 and p99.9:
// what Options.WindowGauges nil means.
func AllWindowGauges() WindowGauges {
	return WindowGauges{Percentiles: true, Means: true, Tokens: true, Rates: true, SLO: true, Intervals: true,
		Levels: []stats.Level{stats.P50, stats.P90, stats.P95, stats.P99, stats.P999}}
}

// secondsMetrics and tokenMetrics are the metrics exported as gauges.
var (
	secondsMetrics = []window.Metric{window.RequestLatency, window.TTFT, window.TTFOT, window.ITL, window.TPOT,
		window.DispatchDelay, window.ScheduledLatency, window.TimeToLastRoundTrip, window.AverageRTT}
	tokenMetrics = []window.Metric{window.PromptTokens, window.OutputTokens}
)

// windowStatuses are the statuses of the per-status gauges ("all" is their
// sum and is left out so that sum() over status does not double count).
var windowStatuses = []stats.Status{stats.StatusSuccessful, stats.StatusErrored, stats.StatusIncomplete}

// windowMetrics returns the duration metrics target t can have: TTFT,
// TTFOT and ITL when streamed, dispatch delay and scheduled latency with an
// arrival schedule, the round-trip metrics for realtime targets; every one
// when t is nil (a target the exporter was not told about).
func windowMetrics(t *Target) []window.Metric {
	if t == nil {
		return secondsMetrics
	}
	var out []window.Metric
	for _, m := range secondsMetrics {
		switch m {
		case window.TTFT, window.TTFOT, window.ITL:
			if !t.Stream {
				continue
			}
		case window.DispatchDelay, window.ScheduledLatency:
			if t.ClosedLoop {
				continue
			}
		case window.TimeToLastRoundTrip, window.AverageRTT:
			if !t.kind().roundTrips {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// distribution are the six gauges of one family of summaries.
type distribution struct {
	percentile, percentileLo, percentileHi metric.Float64ObservableGauge
	mean, meanLo, meanHi                   metric.Float64ObservableGauge
}

// windowInstruments are the window gauges.
type windowInstruments struct {
	length, requestRate, outputRate, totalRate, concurrency metric.Float64ObservableGauge
	approximate, finished                                   metric.Int64ObservableGauge
	seconds, tokens                                         distribution
	slo                                                     windowSLOInstruments
}

// all lists every instrument, for the callback registration.
func (in *windowInstruments) all() []metric.Observable {
	out := []metric.Observable{in.length, in.requestRate, in.outputRate, in.totalRate, in.concurrency,
		in.approximate, in.finished}
	for _, d := range []*distribution{&in.seconds, &in.tokens} {
		out = append(out, d.percentile, d.percentileLo, d.percentileHi, d.mean, d.meanLo, d.meanHi)
	}
	return append(out, in.slo.all()...)
}

// newWindowInstruments creates the window gauges on meter.
func newWindowInstruments(meter metric.Meter) (*windowInstruments, error) {
	var first error
	gauge := func(name, unit, desc string) metric.Float64ObservableGauge {
		g, err := meter.Float64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		if err != nil && first == nil {
			first = fmt.Errorf("could not create instrument %s: %w", name, err)
		}
		return g
	}
	intGauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		g, err := meter.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		if err != nil && first == nil {
			first = fmt.Errorf("could not create instrument %s: %w", name, err)
		}
		return g
	}
	dist := func(q, m, unit, what string) distribution {
		return distribution{
			percentile:   gauge(q, unit, "Percentile of the "+what+" of successful requests in the window; absent without requests."),
			percentileLo: gauge(q+"_ci_lower", unit, "Lower bound of the distribution-free confidence interval of the percentile; absent when the sample cannot bound it."),
			percentileHi: gauge(q+"_ci_upper", unit, "Upper bound of the distribution-free confidence interval of the percentile; absent when the sample cannot bound it."),
			mean:         gauge(m, unit, "Mean of the "+what+" of successful requests in the window (token-weighted for ITL and TPOT); absent without requests."),
			meanLo:       gauge(m+"_ci_lower", unit, "Lower bound of the Student-t confidence interval of the mean; absent with fewer than 2 values."),
			meanHi:       gauge(m+"_ci_upper", unit, "Upper bound of the Student-t confidence interval of the mean; absent with fewer than 2 values."),
		}
	}
	in := &windowInstruments{
		length:      gauge(InstrumentWindowLength, "s", "Effective length of the window: min(window, time since measuring began), or more by less than a bucket when approximate."),
		approximate: intGauge(InstrumentWindowApproximate, "", "1 when the window's percentiles are estimated from a sample (the request rate exceeded the exact-sample cap), else 0."),
		finished:    intGauge(InstrumentWindowFinishedRequests, "{request}", "Requests that ended in the window, by status."),
		requestRate: gauge(InstrumentWindowRequestRate, "{request}/s", "Requests that ended in the window per second of its effective length, by status."),
		outputRate:  gauge(InstrumentWindowOutputTokenRate, "{token}/s", "Output tokens generated in the window (by token event time) per second, by status."),
		totalRate:   gauge(InstrumentWindowTotalTokenRate, "{token}/s", "Prompt and output tokens of the window (by token event time) per second, by status."),
		concurrency: gauge(InstrumentWindowConcurrency, "{request}", "Time-weighted mean number of requests in flight over the window."),
		seconds:     dist(InstrumentWindowPercentile, InstrumentWindowMean, "s", "duration metric (label metric)"),
		tokens:      dist(InstrumentWindowTokensPercentile, InstrumentWindowTokensMean, "{token}", "token count (label metric)"),
		slo:         newWindowSLOInstruments(gauge, intGauge),
	}
	return in, first
}

// windowAttrs are the precomputed attribute sets of one target's window.
type windowAttrs struct {
	length time.Duration
	base   metric.ObserveOption
	status map[stats.Status]metric.ObserveOption
	// seconds are the duration metrics exported for the target.
	seconds []window.Metric
	// levels are the percentile levels exported.
	levels []stats.Level
	// metricOpt and percentileOpt are by metric, and by metric and level
	// (in the order of levels).
	metricOpt     map[window.Metric]metric.ObserveOption
	percentileOpt map[window.Metric][]metric.ObserveOption
	// objectiveOpt are by objective set, in the store's order.
	objectiveOpt []windowObjectiveOpts
}

// newWindowAttrs precomputes every attribute set of target's window, whose
// duration metrics are seconds, percentile levels levels and objective
// sets named objectives.
func newWindowAttrs(target string, length time.Duration, seconds []window.Metric, levels []stats.Level, objectives []string) *windowAttrs {
	tk, wk := attribute.String(labelTarget, target), attribute.String(labelWindow, window.Name(length))
	set := func(kv ...attribute.KeyValue) metric.ObserveOption {
		return metric.WithAttributeSet(attribute.NewSet(append([]attribute.KeyValue{tk, wk}, kv...)...))
	}
	a := &windowAttrs{
		length: length, base: set(), status: map[stats.Status]metric.ObserveOption{}, seconds: seconds, levels: levels,
		metricOpt: map[window.Metric]metric.ObserveOption{}, percentileOpt: map[window.Metric][]metric.ObserveOption{},
	}
	for _, st := range windowStatuses {
		a.status[st] = set(attribute.String(labelStatus, st.String()))
	}
	a.objectiveOpt = windowObjectiveAttrs([]attribute.KeyValue{tk, wk}, objectives)
	for _, m := range append(slices.Clone(seconds), tokenMetrics...) {
		mk := attribute.String(labelMetric, m.String())
		a.metricOpt[m] = set(mk)
		for _, l := range levels {
			a.percentileOpt[m] = append(a.percentileOpt[m], set(mk, attribute.String(labelPercentile, l.Key())))
		}
	}
	return a
}

// observe reports every target's windows from their cached snapshots, all
// of a target's taken at one instant. A target whose windows could not be
// computed is left out with an error (see observeTarget); the others are
// reported.
func (w *Windows) observe(_ context.Context, o metric.Observer) error {
	var errs []error
	for _, wt := range w.targets.all() {
		if err := w.observeTarget(o, wt); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// currentAll computes a store's windows; a variable so that a test can
// make it fail.
var currentAll = (*window.Store).CurrentAll

// observeTarget reports one target's windows. A panic while computing
// them, a defect of llmprober's that no input should cause, is returned
// as an error naming the target, which the SDK hands to its error handler
// (logged, rate-limited): the callback runs in the goroutine of a
// Prometheus collection or an OTLP export, where a panic would end the
// process with every target's probing.
func (w *Windows) observeTarget(o metric.Observer, wt *windowTarget) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("could not compute the windows of %s: %v", wt.store.Target(), r)
		}
	}()
	snaps := currentAll(wt.store)
	for i, a := range wt.windows {
		w.observeWindow(o, a, snaps[i])
	}
	return nil
}

// observeWindow reports one snapshot's selected gauges; absent figures,
// and every figure before the measure start, are not observed.
func (w *Windows) observeWindow(o metric.Observer, a *windowAttrs, snap *window.Snapshot) {
	if !snap.Measuring {
		return
	}
	in, g := w.inst, &w.gauges
	o.ObserveFloat64(in.length, snap.Length().Seconds(), a.base)
	approximate := int64(0)
	if snap.Approximate {
		approximate = 1
	}
	o.ObserveInt64(in.approximate, approximate, a.base)
	if g.Rates {
		observeRates(o, in, a, snap)
	}
	for _, m := range a.seconds {
		observeSummary(o, &in.seconds, g, a, m, snap.Summary(m).Successful)
	}
	if g.Tokens {
		tokens := *g
		tokens.Percentiles, tokens.Means = true, true
		for _, m := range tokenMetrics {
			observeSummary(o, &in.tokens, &tokens, a, m, snap.Summary(m).Successful)
		}
	}
	if g.SLO {
		observeSLO(o, &in.slo, g.Intervals, a.objectiveOpt, snap)
	}
}

// observeRates reports the counts and rates by status and the concurrency.
func observeRates(o metric.Observer, in *windowInstruments, a *windowAttrs, snap *window.Snapshot) {
	observeFloat(o, in.concurrency, snap.Concurrency, a.base)
	for _, st := range windowStatuses {
		opt := a.status[st]
		o.ObserveInt64(in.finished, *snap.Requests.Of(st), opt)
		observeFloat(o, in.requestRate, *snap.RequestRate.Of(st), opt)
		observeFloat(o, in.outputRate, *snap.OutputTokenRate.Of(st), opt)
		observeFloat(o, in.totalRate, *snap.TotalTokenRate.Of(st), opt)
	}
}

// observeSummary reports a summary's mean and percentiles as g selects
// them, with their intervals when g.Intervals.
func observeSummary(o metric.Observer, d *distribution, g *WindowGauges, a *windowAttrs, m window.Metric, s window.Summary) {
	opt := a.metricOpt[m]
	if g.Means {
		observeFloat(o, d.mean, s.Mean, opt)
		if s.MeanCI != nil && g.Intervals {
			o.ObserveFloat64(d.meanLo, s.MeanCI.Lo, opt)
			o.ObserveFloat64(d.meanHi, s.MeanCI.Hi, opt)
		}
	}
	if !g.Percentiles {
		return
	}
	for i, l := range a.levels {
		for _, p := range s.Percentiles {
			if p.Level != l {
				continue
			}
			qopt := a.percentileOpt[m][i]
			observeFloat(o, d.percentile, p.Value, qopt)
			if p.CI != nil && g.Intervals {
				o.ObserveFloat64(d.percentileLo, p.CI.Lo, qopt)
				o.ObserveFloat64(d.percentileHi, p.CI.Hi, qopt)
			}
		}
	}
}

// observeFloat observes *v unless v is nil.
func observeFloat(o metric.Observer, g metric.Float64Observable, v *float64, opt metric.ObserveOption) {
	if v != nil {
		o.ObserveFloat64(g, *v, opt)
	}
}
