package exporter

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

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
// has given it a counter; exports before that are not counted. Each export,
// retries included, ends within timeout, and one export at a time reaches
// the OTLP exporter (which need not be safe for concurrent use).
type countingExporter struct {
	sdkmetric.Exporter
	counter  atomic.Pointer[metric.Int64Counter]
	overflow *overflowWatch
	retired  *retired
	// delta turns the per-target cumulative points into deltas when the
	// exporter asks for them; nil otherwise.
	delta *deltaConverter
	// timeout bounds each export: FlushTimeout of the environment.
	timeout time.Duration
	// turn holds a token while an export runs.
	turn chan struct{}
	// started is the start export, which runs in the background until
	// waitStart; cancelStart ends it early.
	started     sync.WaitGroup
	cancelStart context.CancelFunc
}

// newCountingExporter wraps exp, each export bounded by timeout.
func newCountingExporter(exp sdkmetric.Exporter, timeout time.Duration, watch *overflowWatch, hide *retired) *countingExporter {
	return &countingExporter{Exporter: exp, overflow: watch, retired: hide, delta: newDeltaConverter(exp),
		timeout: timeout, turn: make(chan struct{}, 1), cancelStart: func() {}}
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
// counts the outcome and reports overflow series. It returns within the
// timeout or when ctx ends, whichever comes first, waiting for an export
// in progress (the start export, say) within the same bound.
func (e *countingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if e.overflow != nil {
		e.overflow.otlp(rm)
	}
	e.retired.otlp(rm)
	err := e.export(ctx, rm)
	if c := e.counter.Load(); c != nil {
		(*c).Add(context.WithoutCancel(ctx), 1, exportOutcome[err == nil])
	}
	return err
}

// export sends rm within the timeout, after any export in progress.
func (e *countingExporter) export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	ctx, cancel := context.WithTimeoutCause(ctx, e.timeout, errExportTimeout)
	defer cancel()
	select {
	case e.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("could not export: %w", context.Cause(ctx))
	}
	defer func() { <-e.turn }()
	// Converting to deltas keeps the previous export's points: it runs
	// holding the turn, one export at a time.
	e.delta.convert(rm)
	return e.Exporter.Export(ctx, rm)
}

// errExportTimeout is the cause of an export cut by its timeout.
var errExportTimeout = fmt.Errorf("OTLP export timeout (%s or %s) passed", envOTLPMetricsTimeout, envOTLPTimeout)

// exportStart collects reader's metrics now and exports them in the
// background, handing a failure to handle: the caller (the start, before
// any probe) never waits for the receiver. waitStart ends it. It does
// nothing on a nil receiver (no OTLP).
func (e *countingExporter) exportStart(ctx context.Context, reader *sdkmetric.PeriodicReader, handle func(error)) {
	if e == nil {
		return
	}
	rm := &metricdata.ResourceMetrics{}
	if err := reader.Collect(ctx, rm); err != nil {
		handle(err)
		return
	}
	ctx, e.cancelStart = context.WithCancel(context.WithoutCancel(ctx))
	e.started.Go(func() {
		if err := e.Export(ctx, rm); err != nil {
			handle(err)
		}
	})
}

// waitStart waits for the start export until ctx ends, then cancels it
// and waits for it to return (at once: the exporter honours its context).
// It does nothing on a nil receiver.
func (e *countingExporter) waitStart(ctx context.Context) {
	if e == nil {
		return
	}
	done := make(chan struct{})
	go func() { e.started.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		e.cancelStart()
		<-done
	}
	e.cancelStart()
}
