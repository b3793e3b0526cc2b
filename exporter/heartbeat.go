package exporter

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/metric"
)

// InstrumentCollectionTimestamp is the heartbeat of the process: the
// wall-clock time, in seconds since the Unix epoch, at which this
// collection read the metrics (a Prometheus scrape, or an OTLP export):
// llmprober_collection_timestamp_seconds, no attributes. Where the values
// are read, time() minus it is how old they are. A collector that goes on
// serving a dead process's last values (an OpenTelemetry Collector's
// Prometheus exporter does, for its metric_expiration) serves this one
// frozen too, so its age grows; by scrape, the series goes stale with the
// process. The bundled rules tell live replicas from dead ones by it.
const InstrumentCollectionTimestamp = "llmprober.collection.timestamp"

// specCollectionTimestamp describes llmprober_collection_timestamp_seconds.
var specCollectionTimestamp = spec{Name: InstrumentCollectionTimestamp, Unit: "s",
	Description: "Wall-clock time at which this collection (a scrape or an OTLP export) read llmprober's metrics, in seconds since the Unix epoch: its age where the values are read says whether the process still reports."}

// registerHeartbeat creates llmprober_collection_timestamp_seconds on
// meter, reading now at every collection.
func registerHeartbeat(meter metric.Meter, now func() time.Time) error {
	g, err := meter.Float64ObservableGauge(specCollectionTimestamp.Name, metric.WithUnit(specCollectionTimestamp.Unit),
		metric.WithDescription(specCollectionTimestamp.Description))
	if err != nil {
		return fmt.Errorf("could not create instrument %s: %w", specCollectionTimestamp.Name, err)
	}
	_, err = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		t := now()
		o.ObserveFloat64(g, float64(t.Unix())+float64(t.Nanosecond())/1e9)
		return nil
	}, g)
	if err != nil {
		return fmt.Errorf("could not register the heartbeat callback: %w", err)
	}
	return nil
}
