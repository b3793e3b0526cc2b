// Package exporter adapts the probe package to OpenTelemetry and Prometheus:
// one OpenTelemetry meter provider whose instruments are exported twice (to a
// client_golang registry served on /metrics, and over OTLP when the standard
// environment variables ask for it), an Observer that turns probe events into
// measurements, Windows (the rolling-window gauges and the JSON status API),
// and the HTTP server with the status pages and health routes.
package exporter

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/otlptranslator"
	promBridge "go.opentelemetry.io/contrib/bridges/prometheus"
	"go.opentelemetry.io/otel/attribute"
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
	// Logger receives overflow warnings; nil discards them.
	Logger *slog.Logger
	// Errors logs OpenTelemetry errors (HandleError) and redacts the errors
	// NewMetrics and Shutdown return; nil means an ErrorLog writing to
	// Logger, redacting what Getenv finds, rate-limited by Now.
	Errors *ErrorLog
	// Now is the wall clock of the heartbeat
	// (llmprober_collection_timestamp_seconds) and of the error log's rate
	// limit; nil means time.Now.
	Now func() time.Time
	// WindowGauges selects the window gauges NewWindows exports; nil means
	// AllWindowGauges.
	WindowGauges *WindowGauges
	// CardinalityLimit is the most attribute sets any one instrument
	// keeps before folding the rest into its overflow series (the SDK's
	// limit, for every instrument of every reader); 0 means the SDK's
	// default, 2000. SeriesBudget.CardinalityLimit sizes it from the
	// configuration.
	CardinalityLimit int
}

// Metrics owns the meter providers, the readers and the Prometheus
// registry. The process-wide instruments (build info, heartbeat, reload,
// export and overflow counters) and the window gauges live on one meter
// provider, which both readers read; the Observer's instruments live on
// generations of their own, which both readers read through it as a
// producer (see generations).
type Metrics struct {
	provider *sdkmetric.MeterProvider
	gens     *generations
	registry *prometheus.Registry
	// runtime holds the Go and process collectors, served on /metrics and
	// bridged into OTLP.
	runtime  *prometheus.Registry
	meter    metric.Meter
	gauges   WindowGauges
	identity Identity
	otlp     bool
	// otlpReader is the OTLP periodic reader; nil without OTLP.
	otlpReader *sdkmetric.PeriodicReader
	// exports counts the OTLP exports; nil without OTLP.
	exports *countingExporter
	// overflow notices instruments that overflowed their cardinality limit.
	overflow *overflowWatch
	// reload holds the configuration reload instruments.
	reload *reloadInstruments
	// retired hides the series of targets removed or changed by a reload.
	retired *retired
	// errors logs OpenTelemetry errors, redacted and rate-limited, and
	// redacts the errors returned.
	errors *ErrorLog

	shutdownOnce sync.Once
	shutdownErr  error
}

// Identity is the replica identity of this process on both export paths:
// the resource attributes of OTLP, and labels of llmprober_build_info on
// /metrics (and on OTLP).
type Identity struct {
	// ServiceName is service.name: OTEL_SERVICE_NAME, else service.name
	// in OTEL_RESOURCE_ATTRIBUTES, else "llmprober".
	ServiceName string
	// InstanceID is service.instance.id: the one OTEL_RESOURCE_ATTRIBUTES
	// sets, else a random UUID (version 4) chosen when the process starts.
	InstanceID string
}

// NewMetrics builds the meter provider with a Prometheus reader and, when
// OTEL_METRICS_EXPORTER lists otlp, an OTLP periodic reader. Its error's
// text is redacted and cut by opts.Errors.
func NewMetrics(ctx context.Context, opts Options) (*Metrics, error) {
	opts = opts.withDefaults()
	m, err := newMetrics(ctx, opts)
	if err != nil {
		return nil, opts.Errors.safe("could not set up metrics", err)
	}
	return m, nil
}

// newMetrics is NewMetrics with the defaults filled in and its errors as
// they are.
func newMetrics(ctx context.Context, opts Options) (*Metrics, error) {
	if err := validateExtraBoundaries(opts.ExtraBoundaries); err != nil {
		return nil, fmt.Errorf("could not configure histograms: %w", err)
	}
	m := &Metrics{registry: prometheus.NewRegistry(), runtime: prometheus.NewRegistry(), gauges: AllWindowGauges(),
		overflow: newOverflowWatch(opts.Logger), errors: opts.Errors, retired: newRetired()}
	if opts.WindowGauges != nil {
		m.gauges = *opts.WindowGauges
	}
	if err := m.registerCollectors(); err != nil {
		return nil, err
	}
	gens, err := newGenerations(func() (*generation, error) {
		return newGeneration(opts.CardinalityLimit, opts.Version, opts.ExtraBoundaries)
	})
	if err != nil {
		return nil, err
	}
	m.gens = gens
	if err := m.newProvider(ctx, opts); err != nil {
		return nil, errors.Join(err, gens.shutdown(ctx))
	}
	return m, nil
}

// newProvider creates the readers, the meter provider of the process-wide
// instruments and those instruments.
func (m *Metrics) newProvider(ctx context.Context, opts Options) error {
	readers, err := m.readers(ctx, opts.Getenv)
	if err != nil {
		return err
	}
	res, err := newResource(ctx, opts.Version)
	if err != nil {
		return err
	}
	m.identity = identityOf(res)
	popts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter)}
	if opts.CardinalityLimit > 0 {
		popts = append(popts, sdkmetric.WithCardinalityLimit(opts.CardinalityLimit))
	}
	for _, r := range readers {
		popts = append(popts, sdkmetric.WithReader(r))
	}
	m.provider = sdkmetric.NewMeterProvider(popts...)
	m.meter = m.provider.Meter(scopeName, metric.WithInstrumentationVersion(opts.Version))
	if err := m.newInstruments(opts); err != nil {
		return joinShutdown(ctx, m.provider, err)
	}
	return nil
}

// newInstruments creates build info, the heartbeat, the reload
// instruments, the overflow counter and, with OTLP, the export counter.
func (m *Metrics) newInstruments(opts Options) error {
	var err error
	if err := m.exports.count(m.meter); err != nil {
		return err
	}
	if err := m.overflow.count(m.meter); err != nil {
		return err
	}
	if err := registerHeartbeat(m.meter, opts.Now); err != nil {
		return err
	}
	if m.reload, err = newReloadInstruments(m.meter, opts.Now()); err != nil {
		return err
	}
	return registerBuildInfo(m.meter, buildInfo(opts, m.identity))
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
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Errors == nil {
		opts.Errors = NewErrorLog(opts.Logger, opts.Getenv, opts.Now)
	}
	return opts
}

// readers returns the Prometheus reader and, if enabled, the OTLP reader,
// which also carries the Go and process collectors.
func (m *Metrics) readers(ctx context.Context, getenv func(string) string) ([]sdkmetric.Reader, error) {
	prom, err := otelprom.New(
		otelprom.WithRegisterer(m.registry),
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes),
		otelprom.WithoutScopeInfo(),
		otelprom.WithoutTargetInfo(),
		otelprom.WithProducer(m.gens),
	)
	if err != nil {
		return nil, fmt.Errorf("could not create Prometheus exporter: %w", err)
	}
	otlp, exports, err := newOTLPReader(ctx, getenv, m.overflow, m.retired, sdkmetric.WithProducer(m.gens),
		sdkmetric.WithProducer(promBridge.NewMetricProducer(promBridge.WithGatherer(m.runtime))))
	if err != nil {
		return nil, fmt.Errorf("could not configure OTLP: %w", err)
	}
	if otlp == nil {
		return []sdkmetric.Reader{prom}, nil
	}
	m.otlp, m.otlpReader, m.exports = true, otlp, exports
	return []sdkmetric.Reader{prom, otlp}, nil
}

// newResource describes this process: service name, instance and version,
// SDK attributes, then OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME,
// which win (so a service.instance.id set there replaces the random one),
// except that an empty service.name or service.instance.id there
// (service.instance.id=) keeps the default: two replicas must never share
// an identity, not even the empty one.
func newResource(ctx context.Context, version string) (*resource.Resource, error) {
	id, err := newUUID()
	if err != nil {
		return nil, err
	}
	defaults := []attribute.KeyValue{semconv.ServiceName(ServiceName), semconv.ServiceInstanceID(id)}
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(append(defaults, semconv.ServiceVersion(version))...),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("could not build resource: %w", err)
	}
	var keep []attribute.KeyValue
	for _, kv := range defaults {
		if v, ok := res.Set().Value(kv.Key); !ok || v.AsString() == "" {
			keep = append(keep, kv)
		}
	}
	if len(keep) == 0 {
		return res, nil
	}
	return resource.Merge(res, resource.NewSchemaless(keep...))
}

// identityOf reads the service name and instance id of res.
func identityOf(res *resource.Resource) Identity {
	var id Identity
	if v, ok := res.Set().Value(semconv.ServiceNameKey); ok {
		id.ServiceName = v.AsString()
	}
	if v, ok := res.Set().Value(semconv.ServiceInstanceIDKey); ok {
		id.InstanceID = v.AsString()
	}
	return id
}

// newUUID returns a random (version 4) UUID.
func newUUID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("could not draw a service.instance.id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// registerCollectors adds the Go and process collectors to the runtime
// registry.
func (m *Metrics) registerCollectors() error {
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	} {
		if err := m.runtime.Register(c); err != nil {
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

// Registry returns every metric served on /metrics: the instruments, the
// Go and process collectors.
func (m *Metrics) Registry() prometheus.Gatherer {
	return prometheus.Gatherers{m.registry, m.runtime}
}

// Identity returns the process's service name and instance id.
func (m *Metrics) Identity() Identity { return m.identity }

// Meter returns the meter of the process-wide instruments, for adding
// instruments elsewhere (they are exported the same two ways); the
// Observer's instruments are on generations of their own.
func (m *Metrics) Meter() metric.Meter { return m.meter }

// OTLPEnabled reports whether an OTLP reader was configured.
func (m *Metrics) OTLPEnabled() bool { return m.otlp }

// Handler serves the registry in the Prometheus text or OpenMetrics
// format, and reports any overflow series it serves.
func (m *Metrics) Handler() http.Handler {
	gather := prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		mfs, err := m.Registry().Gather()
		m.overflow.prometheus(mfs)
		return m.retired.prometheus(mfs), err
	})
	return promhttp.HandlerFor(gather, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// HandleError logs an error of the OpenTelemetry SDK (a failed OTLP
// export, typically): redacted of the OTLP headers' values and the
// endpoints' passwords, and rate-limited, the first at once, then at most
// one a minute with the number of those not shown. Install it with
// otel.SetErrorHandler.
func (m *Metrics) HandleError(err error) { m.errors.Handle(err) }

// SDKLogger returns a logger for otel.SetLogger; see ErrorLog.SDKLogger.
func (m *Metrics) SDKLogger() logr.Logger { return m.errors.SDKLogger() }

// ExportStart exports once over OTLP, if OTLP is enabled: called after
// every target's instruments exist and before any probe is sent, it gives
// every counter a first OTLP sample of 0, so that a receiver's rate() and
// increase() count the first export interval of a new process too. It
// collects now and returns: the export runs in the background, bounded
// by the OTLP timeout (OTEL_EXPORTER_OTLP_TIMEOUT, default 10 s), and
// Shutdown waits for it within its context; a failure is counted and
// logged like any failed export.
func (m *Metrics) ExportStart(ctx context.Context) {
	m.exports.exportStart(ctx, m.otlpReader, m.errors.Handle)
}

// Shutdown waits for the start export (ExportStart) within ctx, flushes
// the OTLP reader (a final export) and stops every reader.
// Its error (the final export failed, say) has its text redacted and cut
// as Options.Errors redacts. It is idempotent: later calls return the
// first call's result.
func (m *Metrics) Shutdown(ctx context.Context) error {
	m.shutdownOnce.Do(func() {
		m.exports.waitStart(ctx)
		err := errors.Join(m.provider.Shutdown(ctx), m.gens.shutdown(ctx))
		m.shutdownErr = m.errors.safe("could not shut down meter provider", err)
	})
	return m.shutdownErr
}
