package exporter

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/otlptranslator"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// InstrumentSeriesOverflow counts the collections (Prometheus scrapes and
// OTLP exports) in which an instrument (label instrument, its Prometheus
// name) had more attribute sets than its cardinality limit and folded the
// rest into its otel_metric_overflow="true" series:
// llmprober_series_overflow_total. It has no series until that happens,
// which SeriesBudget and a limit of twice the budget make a bug.
const InstrumentSeriesOverflow = "llmprober.series.overflow"

// overflowKey is the attribute the SDK puts on an overflow series, and
// overflowLabel its Prometheus label.
const (
	overflowKey   = "otel.metric.overflow"
	overflowLabel = "otel_metric_overflow"
)

// overflowWatch notices overflow series in what is collected: it logs a
// warning once per instrument and counts every collection that has one.
type overflowWatch struct {
	logger  *slog.Logger
	counter atomic.Pointer[metric.Int64Counter]

	mu     sync.Mutex
	logged map[string]bool
}

// newOverflowWatch returns a watch logging to logger.
func newOverflowWatch(logger *slog.Logger) *overflowWatch {
	return &overflowWatch{logger: logger, logged: map[string]bool{}}
}

// count creates the overflow counter on meter.
func (w *overflowWatch) count(meter metric.Meter) error {
	c, err := meter.Int64Counter(InstrumentSeriesOverflow, metric.WithUnit("{collection}"),
		metric.WithDescription("Collections (scrapes and OTLP exports) in which the instrument named by instrument exceeded its cardinality limit and folded attribute sets into its otel_metric_overflow series; absent until that happens."))
	if err != nil {
		return fmt.Errorf("could not create instrument %s: %w", InstrumentSeriesOverflow, err)
	}
	w.counter.Store(&c)
	return nil
}

// found records that instrument (a Prometheus name) overflowed in one
// collection, over path ("prometheus" or "otlp").
func (w *overflowWatch) found(instrument, path string) {
	if c := w.counter.Load(); c != nil {
		(*c).Add(context.Background(), 1, metric.WithAttributeSet(attribute.NewSet(attribute.String("instrument", instrument))))
	}
	w.mu.Lock()
	first := !w.logged[instrument]
	w.logged[instrument] = true
	w.mu.Unlock()
	if first {
		w.logger.Warn("instrument exceeded its cardinality limit; series are being merged into its otel_metric_overflow series",
			"instrument", instrument, "path", path)
	}
}

// prometheus looks for overflow series in gathered families.
func (w *overflowWatch) prometheus(mfs []*dto.MetricFamily) {
	for _, mf := range mfs {
		if familyOverflowed(mf) {
			w.found(mf.GetName(), "prometheus")
		}
	}
}

// familyOverflowed reports whether one of mf's series is an overflow series.
func familyOverflowed(mf *dto.MetricFamily) bool {
	for _, m := range mf.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == overflowLabel && l.GetValue() == "true" {
				return true
			}
		}
	}
	return false
}

// otlp looks for overflow data points in an export.
func (w *overflowWatch) otlp(rm *metricdata.ResourceMetrics) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if typ, over := dataOverflowed(m.Data); over {
				w.found(promName(m.Name, m.Unit, typ), "otlp")
			}
		}
	}
}

// dataOverflowed reports whether one of data's points carries the overflow
// attribute, and the Prometheus type of data.
func dataOverflowed(data metricdata.Aggregation) (otlptranslator.MetricType, bool) {
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		return sumType(d.IsMonotonic), anyOverflow(d.DataPoints)
	case metricdata.Sum[float64]:
		return sumType(d.IsMonotonic), anyOverflow(d.DataPoints)
	case metricdata.Gauge[int64]:
		return otlptranslator.MetricTypeGauge, anyOverflow(d.DataPoints)
	case metricdata.Gauge[float64]:
		return otlptranslator.MetricTypeGauge, anyOverflow(d.DataPoints)
	case metricdata.Histogram[int64]:
		return otlptranslator.MetricTypeHistogram, anyHistOverflow(d.DataPoints)
	case metricdata.Histogram[float64]:
		return otlptranslator.MetricTypeHistogram, anyHistOverflow(d.DataPoints)
	}
	return otlptranslator.MetricTypeUnknown, false
}

// sumType is the Prometheus type of a sum.
func sumType(monotonic bool) otlptranslator.MetricType {
	if monotonic {
		return otlptranslator.MetricTypeMonotonicCounter
	}
	return otlptranslator.MetricTypeGauge
}

// anyOverflow reports whether a point carries the overflow attribute.
func anyOverflow[N int64 | float64](points []metricdata.DataPoint[N]) bool {
	for _, p := range points {
		if isOverflow(p.Attributes) {
			return true
		}
	}
	return false
}

// anyHistOverflow is anyOverflow for histogram points.
func anyHistOverflow[N int64 | float64](points []metricdata.HistogramDataPoint[N]) bool {
	for _, p := range points {
		if isOverflow(p.Attributes) {
			return true
		}
	}
	return false
}

// isOverflow reports whether set is the SDK's overflow set.
func isOverflow(set attribute.Set) bool {
	v, ok := set.Value(overflowKey)
	return ok && v.AsBool()
}
