package exporter

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Instruments of configuration reloads, named as Prometheus names its own.
const (
	// InstrumentReloadSuccessful is 1 when the last reload (or the start)
	// succeeded, 0 when it failed: llmprober_config_last_reload_successful.
	InstrumentReloadSuccessful = "llmprober.config.last_reload_successful"
	// InstrumentReloadSuccessTimestamp is the wall-clock time of the last
	// successful reload, or of the start, in seconds since the Unix epoch:
	// llmprober_config_last_reload_success_timestamp_seconds.
	InstrumentReloadSuccessTimestamp = "llmprober.config.last_reload_success_timestamp"
	// InstrumentReloads counts the reloads tried, by outcome (success,
	// failure), both from 0: llmprober_config_reloads_total.
	InstrumentReloads = "llmprober.config.reloads"
)

// Outcomes of a reload, the outcome label of llmprober_config_reloads_total.
const (
	ReloadSuccess = "success"
	ReloadFailure = "failure"
)

// reloadOutcomes lists the outcomes, each a series from the start.
var reloadOutcomes = []string{ReloadSuccess, ReloadFailure}

// specReload* describe the reload instruments.
var (
	specReloadSuccessful = spec{Name: InstrumentReloadSuccessful, Unit: "",
		Description: "Whether the last configuration reload succeeded (1) or failed (0); 1 at start."}
	specReloadSuccessTimestamp = spec{Name: InstrumentReloadSuccessTimestamp, Unit: "s",
		Description: "Wall-clock time of the last successful configuration reload, or of the start, in seconds since the Unix epoch."}
	specReloads = spec{Name: InstrumentReloads, Unit: "{reload}",
		Description: "Configuration reloads tried, by outcome (success or failure); a reload of an unchanged file is not one."}
)

// reloadInstruments are the reload gauges and counter.
type reloadInstruments struct {
	successful metric.Int64Gauge
	timestamp  metric.Float64Gauge
	reloads    metric.Int64Counter
	outcomes   map[string]metric.AddOption
}

// newReloadInstruments creates the reload instruments on meter: successful
// 1, the timestamp now, both outcomes at 0.
func newReloadInstruments(meter metric.Meter, now time.Time) (*reloadInstruments, error) {
	r := &reloadInstruments{outcomes: map[string]metric.AddOption{}}
	var err error
	if r.successful, err = meter.Int64Gauge(specReloadSuccessful.Name, metric.WithDescription(specReloadSuccessful.Description)); err != nil {
		return nil, fmt.Errorf("could not create instrument %s: %w", specReloadSuccessful.Name, err)
	}
	if r.timestamp, err = meter.Float64Gauge(specReloadSuccessTimestamp.Name, metric.WithUnit(specReloadSuccessTimestamp.Unit),
		metric.WithDescription(specReloadSuccessTimestamp.Description)); err != nil {
		return nil, fmt.Errorf("could not create instrument %s: %w", specReloadSuccessTimestamp.Name, err)
	}
	if r.reloads, err = meter.Int64Counter(specReloads.Name, metric.WithUnit(specReloads.Unit),
		metric.WithDescription(specReloads.Description)); err != nil {
		return nil, fmt.Errorf("could not create instrument %s: %w", specReloads.Name, err)
	}
	for _, o := range reloadOutcomes {
		r.outcomes[o] = metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", o)))
		r.reloads.Add(context.Background(), 0, r.outcomes[o])
	}
	r.set(true, now)
	return r, nil
}

// set records the state after a reload (or the start) at now.
func (r *reloadInstruments) set(ok bool, now time.Time) {
	ctx := context.Background()
	if !ok {
		r.successful.Record(ctx, 0)
		return
	}
	r.successful.Record(ctx, 1)
	r.timestamp.Record(ctx, float64(now.UnixNano())/1e9)
}

// Reloaded records a configuration reload tried at now: its outcome
// counted, the last outcome and, on success, its time.
func (m *Metrics) Reloaded(ok bool, now time.Time) {
	outcome := ReloadFailure
	if ok {
		outcome = ReloadSuccess
	}
	m.reload.reloads.Add(context.Background(), 1, m.reload.outcomes[outcome])
	m.reload.set(ok, now)
}

// NewBoundaries returns, per histogram (OpenTelemetry name), the bucket
// boundaries (seconds) of next that the histograms built with running
// lack: extra boundaries (Options.ExtraBoundaries) merged with each
// histogram's defaults. A histogram's boundaries are fixed when it is
// created, so a reload cannot add them.
func NewBoundaries(running, next map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, s := range histogramSpecs {
		have := mergeBoundaries(s.Boundaries, running[s.Name])
		for _, b := range next[s.Name] {
			if !slices.Contains(have, b) {
				out[s.Name] = append(out[s.Name], b)
			}
		}
	}
	return out
}
