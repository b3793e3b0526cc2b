package exporter

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// InstrumentOTLPExports counts the OTLP metric exports by outcome (label
// outcome: success, or failure when the export request failed or the
// receiver rejected it): llmprober_otlp_exports_total. It exists only when
// OTLP is enabled, and then both series exist from start at 0.
const InstrumentOTLPExports = "llmprober.otlp.exports"

// Outcomes of an OTLP export.
const (
	exportSuccess = "success"
	exportFailure = "failure"
)

// countingExporter is an OTLP exporter that counts its exports once count
// has given it a counter; exports before that are not counted.
type countingExporter struct {
	sdkmetric.Exporter
	counter  atomic.Pointer[metric.Int64Counter]
	overflow *overflowWatch
	retired  *retired
	// delta turns the per-target cumulative points into deltas when the
	// exporter asks for them; nil otherwise.
	delta *deltaConverter
}

// exportOutcome are the attribute sets of the outcomes.
var exportOutcome = map[bool]metric.AddOption{
	true:  metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", exportSuccess))),
	false: metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", exportFailure))),
}

// count creates the export counter on meter, with both outcomes at 0. It
// does nothing on a nil receiver (no OTLP).
func (e *countingExporter) count(meter metric.Meter) error {
	if e == nil {
		return nil
	}
	c, err := meter.Int64Counter(InstrumentOTLPExports, metric.WithUnit("{export}"),
		metric.WithDescription("OTLP metric exports by outcome: success, or failure (the request failed or the receiver rejected it)."))
	if err != nil {
		return fmt.Errorf("could not create instrument %s: %w", InstrumentOTLPExports, err)
	}
	for _, opt := range exportOutcome {
		c.Add(context.Background(), 0, opt)
	}
	e.counter.Store(&c)
	return nil
}

// Export exports rm without its retired series, with the per-target
// counters and histograms in the temporality the exporter asks for,
// counts the outcome and reports overflow series.
func (e *countingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if e.overflow != nil {
		e.overflow.otlp(rm)
	}
	e.retired.otlp(rm)
	e.delta.convert(rm)
	err := e.Exporter.Export(ctx, rm)
	if c := e.counter.Load(); c != nil {
		(*c).Add(context.WithoutCancel(ctx), 1, exportOutcome[err == nil])
	}
	return err
}
