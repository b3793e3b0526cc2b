// Package daemon is a running llmprober: one exporter, its HTTP server and
// a unit per configured target, from start to the final flush, with
// configuration reloads reconciling the units in between.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe/clock"
)

// Options configure New.
type Options struct {
	// Config is the validated configuration to run.
	Config *config.Config
	// Logger receives every log line; Level, when not nil, is its level,
	// which a reload sets to the new log_level.
	Logger *slog.Logger
	Level  *slog.LevelVar
	// WebConfigFile is the exporter-toolkit web configuration; empty
	// serves plain HTTP.
	WebConfigFile string
	// Getenv reads the environment (OTLP variables, API keys).
	Getenv func(string) string
	// Reload, when not nil, validates the configuration again, with the
	// checks of llmprober check: data is the contents of File, read once
	// through config.ReadFile (nil when File is empty). Nil makes every
	// reload fail.
	Reload func(data []byte) (*config.Config, error)
	// File is the configuration file whose SHA-256 checksum tells a reload
	// whether anything changed; empty loads on every reload.
	File string
	// Sum is the SHA-256 checksum of the contents of File that Config was
	// read from; when zero, New reads File to compute it.
	Sum [32]byte
	// AutoReloadInterval, when positive, polls File that often: its status
	// (size, modification time, inode) first, and its contents when that
	// changed; it reloads when the contents changed.
	AutoReloadInterval time.Duration
	// Hangup delivers SIGHUP: each one reloads.
	Hangup <-chan struct{}
	// EnableLifecycle serves POST /-/reload; without it the route answers
	// 403, as Prometheus's does without --web.enable-lifecycle.
	EnableLifecycle bool
	// AllowedHosts are the Host names the pages, the API, /config and
	// POST /-/reload answer besides IP literals, localhost, the machine's
	// name and the listen address's (exporter.ServerOptions.AllowedHosts).
	AllowedHosts []string
}

// Daemon is one running llmprober: its metrics, HTTP server and units.
type Daemon struct {
	opts     Options
	logger   *slog.Logger
	clk      clock.Clock
	logs     *wiring.LogObserver
	metrics  *exporter.Metrics
	metricsO exporter.Options
	observer *exporter.Observer
	windows  *exporter.Windows
	server   *exporter.Server
	// flushTimeout bounds the final OTLP flush.
	flushTimeout time.Duration
	// maxConns is the HTTP server's connection cap.
	maxConns int

	// running is the configuration running, for /config.
	running atomic.Pointer[config.Config]

	// gen numbers the reads of the configuration file, in order.
	gen atomic.Uint64

	// mu serialises the swaps of reloads, start and stop (never file
	// reads); it guards what follows.
	mu    sync.Mutex
	units map[string]*unit
	sum   [32]byte
	// done is the generation of the last reload that finished.
	done     uint64
	failed   bool
	probeCtx context.Context
	stopped  bool
}

// New wires every configured target to one exporter, whose
// OpenTelemetry errors and SDK messages go to the logger, redacted and
// rate-limited; nothing is probed before Run.
func New(ctx context.Context, o Options) (*Daemon, error) {
	cfg := o.Config
	if err := wiring.EnsureFileLimit(cfg.Targets, o.Logger); err != nil {
		return nil, err
	}
	opts, budget, err := wiring.MetricsOptions(cfg, o.Getenv, o.Logger)
	if err != nil {
		return nil, err
	}
	if err := wiring.CheckBudget(cfg, budget); err != nil {
		return nil, fmt.Errorf("%w:\n%w", wiring.ErrInvalid, err)
	}
	opts.Errors = exporter.NewErrorLog(o.Logger, o.Getenv, nil)
	opts.Errors.Install()
	metrics, err := exporter.NewMetrics(ctx, opts)
	if err != nil {
		return nil, err
	}
	d := &Daemon{opts: o, logger: o.Logger, metrics: metrics, metricsO: opts, flushTimeout: exporter.FlushTimeout(o.Getenv),
		clk: clock.Precise(), units: map[string]*unit{}}
	d.sum = o.Sum
	if d.sum == ([32]byte{}) {
		d.sum = readConfig(o.File).sum
	}
	if err := d.build(cfg); err != nil {
		return nil, errors.Join(err, d.close())
	}
	d.running.Store(cfg)
	return d, nil
}

// build creates the observer, the window gauges, a unit per target and
// the HTTP server.
func (d *Daemon) build(cfg *config.Config) error {
	var err error
	if d.observer, err = exporter.NewObserver(d.metrics, nil); err != nil {
		return err
	}
	d.logs = wiring.NewLogObserver(d.logger, d.clk.Now)
	if d.windows, err = exporter.NewWindows(d.metrics, d.observer, nil); err != nil {
		return err
	}
	for i := range cfg.Targets {
		u, err := d.newUnit(cfg, &cfg.Targets[i], nil)
		if err != nil {
			return err
		}
		if err := u.join(d); err != nil {
			return err
		}
		d.units[u.cfg.Name] = u
	}
	d.maxConns = wiring.ServerConnections(wiring.OpenFileLimit(), cfg.Targets)
	d.server = exporter.NewServer(exporter.ServerOptions{
		Metrics: d.metrics, Observer: d.observer, Windows: d.windows, WebConfigFile: d.opts.WebConfigFile,
		Version: buildinfo.Version(), Logger: d.logger, ConfigPath: "/config",
		Limits:       exporter.ServerLimits{MaxConnections: d.maxConns},
		AllowedHosts: allowedHosts(d.opts.AllowedHosts, cfg.ListenAddress),
	})
	d.windows.Register(d.server)
	d.registerRoutes()
	return nil
}

// Run serves HTTP on listen and probes every target until ctx ends,
// reloading on SIGHUP, POST /-/reload (with EnableLifecycle) and, when
// enabled, a changed file; then it stops the units (requests in flight
// become incomplete), flushes the metrics and shuts the server down. The
// probes start without waiting for the start OTLP export.
func (d *Daemon) Run(ctx context.Context, listen string, stdout io.Writer) error {
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return errors.Join(fmt.Errorf("could not listen on %s: %w", listen, err), d.close())
	}
	printURLs(stdout, l.Addr().String(), d.metrics.OTLPEnabled())
	serveErr := make(chan error, 1)
	go func() { serveErr <- d.server.Serve(l) }()

	// Before any probe: every counter's first OTLP sample is 0.
	d.metrics.ExportStart(ctx)
	probeCtx, stopProbes := context.WithCancel(ctx)
	d.startAll(probeCtx)
	d.logger.Info("probing", "targets", len(d.running.Load().Targets), "listen", l.Addr().String(),
		"max_connections", d.maxConns)
	var watchers sync.WaitGroup
	watchers.Go(func() { d.watch(probeCtx) })
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-serveErr:
	}
	stopProbes()
	watchers.Wait()
	d.stopAll()
	d.logger.Info("stopped probing")
	return errors.Join(runErr, d.close())
}

// startAll starts every unit under ctx.
func (d *Daemon) startAll(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.probeCtx = ctx
	for _, u := range d.units {
		u.start(ctx)
	}
}

// stopAll stops every unit; no reload runs after it.
func (d *Daemon) stopAll() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	for _, u := range d.units {
		u.stop(context.Canceled)
	}
}

// close shuts down everything New built: first the HTTP server,
// within its own bound (exporter.ServerLimits.ShutdownTimeout), after
// which clients still connected are cut; then the final OTLP flush, within
// flushTimeout.
func (d *Daemon) close() error {
	var errs []error
	if d.server != nil {
		errs = append(errs, d.server.Shutdown(context.Background()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.flushTimeout)
	defer cancel()
	// The final OTLP flush reads the observer's gauges: shut the meter
	// provider down before unregistering them.
	errs = append(errs, d.metrics.Shutdown(ctx))
	if d.observer != nil {
		errs = append(errs, d.observer.Close())
	}
	if d.windows != nil {
		errs = append(errs, d.windows.Close())
	}
	d.mu.Lock()
	for _, u := range d.units {
		u.wired.Client.CloseIdleConnections()
	}
	d.mu.Unlock()
	return errors.Join(errs...)
}

// allowedHosts is names and the host of the listen address.
func allowedHosts(names []string, listen string) []string {
	if host, _, err := net.SplitHostPort(listen); err == nil && host != "" {
		return append(slices.Clone(names), host)
	}
	return names
}

// printURLs tells the user where to look.
func printURLs(w io.Writer, addr string, otlp bool) {
	host, port, _ := net.SplitHostPort(addr)
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	base := "http://" + net.JoinHostPort(host, port)
	fmt.Fprintf(w, "llmprober %s listening on %s\n", buildinfo.Version(), addr)
	fmt.Fprintf(w, "  status page:  %s/\n  metrics:      %s/metrics\n  ready:        %s/-/ready\n", base, base, base)
	fmt.Fprintf(w, "  status API:   %s/api/v1/targets\n", base)
	if otlp {
		fmt.Fprintln(w, "  OTLP export:  on (OTEL_METRICS_EXPORTER=otlp)")
	}
}
