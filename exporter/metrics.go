// Package exporter adapts the probe package to OpenTelemetry and Prometheus:
// one OpenTelemetry meter provider whose instruments are exported twice (to a
// client_golang registry served on /metrics, and over OTLP when the standard
// environment variables ask for it), an Observer that turns probe events into
// measurements, Windows (the rolling-window gauges and the JSON status API),
// and the HTTP server with the landing page and health routes.
package exporter

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// ServiceName is the OpenTelemetry service.name of the resource.
const ServiceName = "llmprober"

// scopeName is the instrumentation scope of every instrument.
const scopeName = "github.com/llmprober/llmprober/exporter"

// Options configures NewMetrics. The zero value is usable.
type Options struct {
	// Version is the program version: the resource's service.version and the
	// version label of llmprober_build_info. Empty means "unknown".
	Version string
	// Revision is the source revision for llmprober_build_info. Empty means
	// the binary's embedded VCS revision, or "unknown" without one.
	Revision string
	// Getenv looks up OTEL_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL
	// and OTEL_EXPORTER_OTLP_PROTOCOL. Nil means os.Getenv. The OTLP exporters
	// and the periodic reader read their own variables (endpoint, headers,
	// timeout, certificates, export interval) from the process environment.
	Getenv func(string) string
	// ExtraBoundaries adds bucket boundaries, in the instrument's unit, to the
	// histogram named by each key (an Instrument* name, for example
	// InstrumentTTFT), typically SLO thresholds. They are merged with the
	// defaults, sorted and de-duplicated. Boundaries are fixed when the
	// instruments are created: changing them needs a new Metrics.
	ExtraBoundaries map[string][]float64
}

// Metrics owns the meter provider, its readers and the Prometheus registry.
type Metrics struct {
	provider *sdkmetric.MeterProvider
	registry *prometheus.Registry
	meter    metric.Meter
	inst     *instruments
	otlp     bool
	// exports counts the OTLP exports; nil without OTLP.
	exports *countingExporter

	shutdownOnce sync.Once
	shutdownErr  error
}

// NewMetrics builds the meter provider with a Prometheus reader and, when
// OTEL_METRICS_EXPORTER lists otlp, an OTLP periodic reader.
func NewMetrics(ctx context.Context, opts Options) (*Metrics, error) {
	opts = opts.withDefaults()
	if err := validateExtraBoundaries(opts.ExtraBoundaries); err != nil {
		return nil, fmt.Errorf("could not configure histograms: %w", err)
	}
	m := &Metrics{registry: prometheus.NewRegistry()}
	readers, err := m.readers(ctx, opts.Getenv)
	if err != nil {
		return nil, err
	}
	res, err := newResource(ctx, opts.Version)
	if err != nil {
		return nil, err
	}
	popts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter)}
	for _, r := range readers {
		popts = append(popts, sdkmetric.WithReader(r))
	}
	m.provider = sdkmetric.NewMeterProvider(popts...)
	m.meter = m.provider.Meter(scopeName, metric.WithInstrumentationVersion(opts.Version))
	if m.inst, err = newInstruments(m.meter, opts.ExtraBoundaries); err != nil {
		return nil, joinShutdown(ctx, m.provider, err)
	}
	if err := m.exports.count(m.meter); err != nil {
		return nil, joinShutdown(ctx, m.provider, err)
	}
	if err := m.registerCollectors(opts); err != nil {
		return nil, joinShutdown(ctx, m.provider, err)
	}
	return m, nil
}

// withDefaults fills the optional fields of opts.
func (opts Options) withDefaults() Options {
	if opts.Version == "" {
		opts.Version = "unknown"
	}
	if opts.Revision == "" {
		opts.Revision = VCSRevision()
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	return opts
}

// readers returns the Prometheus reader and, if enabled, the OTLP reader.
func (m *Metrics) readers(ctx context.Context, getenv func(string) string) ([]sdkmetric.Reader, error) {
	prom, err := otelprom.New(
		otelprom.WithRegisterer(m.registry),
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes),
		otelprom.WithoutScopeInfo(),
		otelprom.WithoutTargetInfo(),
	)
	if err != nil {
		return nil, fmt.Errorf("could not create Prometheus exporter: %w", err)
	}
	otlp, exports, err := newOTLPReader(ctx, getenv)
	if err != nil {
		return nil, fmt.Errorf("could not configure OTLP: %w", err)
	}
	if otlp == nil {
		return []sdkmetric.Reader{prom}, nil
	}
	m.otlp, m.exports = true, exports
	return []sdkmetric.Reader{prom, otlp}, nil
}

// newResource describes this process: service name and version, SDK
// attributes, then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, which win.
func newResource(ctx context.Context, version string) (*resource.Resource, error) {
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(ServiceName), semconv.ServiceVersion(version)),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("could not build resource: %w", err)
	}
	return res, nil
}

// registerCollectors adds the Go, process and build-info collectors.
func (m *Metrics) registerCollectors(opts Options) error {
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "llmprober_build_info",
		Help: "Build information of the running llmprober; always 1.",
		ConstLabels: prometheus.Labels{
			"version": opts.Version, "revision": opts.Revision, "goversion": runtime.Version(),
		},
	})
	build.Set(1)
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		build,
	} {
		if err := m.registry.Register(c); err != nil {
			return fmt.Errorf("could not register collector: %w", err)
		}
	}
	return nil
}

// VCSRevision returns the VCS revision embedded in the binary, or "unknown".
func VCSRevision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// joinShutdown shuts p down after a construction failure and returns err.
func joinShutdown(ctx context.Context, p *sdkmetric.MeterProvider, err error) error {
	if serr := p.Shutdown(ctx); serr != nil {
		return fmt.Errorf("%w (and could not shut down: %w)", err, serr)
	}
	return err
}

// Registry returns the Prometheus registry holding every exported metric.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Meter returns the meter the instruments live on, for adding instruments
// elsewhere (they are exported the same two ways).
func (m *Metrics) Meter() metric.Meter { return m.meter }

// OTLPEnabled reports whether an OTLP reader was configured.
func (m *Metrics) OTLPEnabled() bool { return m.otlp }

// Handler serves the registry in the Prometheus text or OpenMetrics format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
	})
}

// Shutdown flushes the OTLP reader (a final export) and stops every reader.
// It is idempotent: later calls return the first call's result.
func (m *Metrics) Shutdown(ctx context.Context) error {
	m.shutdownOnce.Do(func() {
		if err := m.provider.Shutdown(ctx); err != nil {
			m.shutdownErr = fmt.Errorf("could not shut down meter provider: %w", err)
		}
	})
	return m.shutdownErr
}
