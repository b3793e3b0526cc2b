package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// daemon is one running llmprober: its metrics, HTTP server and probers.
type daemon struct {
	logger   *slog.Logger
	metrics  *exporter.Metrics
	observer *exporter.Observer
	windows  *exporter.Windows
	server   *exporter.Server
	targets  []*wired
	// flushTimeout bounds the final OTLP flush.
	flushTimeout time.Duration
	// maxConns is the HTTP server's connection cap.
	maxConns int
}

// newDaemon wires every configured target to one exporter, whose
// OpenTelemetry errors and SDK messages go to logger, redacted and
// rate-limited.
func newDaemon(ctx context.Context, cfg *config.Config, logger *slog.Logger, webConfig string, getenv func(string) string) (*daemon, error) {
	opts, budget, err := metricsOptions(cfg, getenv, logger)
	if err != nil {
		return nil, err
	}
	if err := checkBudget(cfg, budget); err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	opts.Errors = exporter.NewErrorLog(logger, getenv, nil)
	opts.Errors.Install()
	metrics, err := exporter.NewMetrics(ctx, opts)
	if err != nil {
		return nil, err
	}
	infos := exporterTargets(cfg)
	d := &daemon{logger: logger, metrics: metrics, flushTimeout: exporter.FlushTimeout(getenv)}
	if d.observer, err = exporter.NewObserver(metrics, infos); err != nil {
		return nil, errors.Join(err, d.close())
	}
	clk := clock.Precise()
	logs := newLogObserver(logger, clk.Now)
	stores, err := newWindowStores(cfg, clk)
	if err != nil {
		return nil, errors.Join(err, d.close())
	}
	if d.windows, err = exporter.NewWindows(metrics, d.observer, stores); err != nil {
		return nil, errors.Join(err, d.close())
	}
	for i := range cfg.Targets {
		obs := probe.Observers{d.observer, logs, stores[i]}
		w, err := wireTarget(&cfg.Targets[i], clk, obs, logs, logger)
		if err != nil {
			return nil, errors.Join(err, d.close())
		}
		d.targets = append(d.targets, w)
	}
	d.maxConns = serverConnections(openFileLimit(), cfg.Targets)
	d.server = exporter.NewServer(exporter.ServerOptions{
		Metrics: metrics, Observer: d.observer, Windows: d.windows, WebConfigFile: webConfig, Version: buildVersion(), Logger: logger,
		Limits: exporter.ServerLimits{MaxConnections: d.maxConns},
	})
	d.windows.Register(d.server)
	return d, nil
}

// run serves HTTP on listen and probes every target until ctx ends, then
// stops the probers (requests in flight become incomplete), flushes the
// metrics and shuts the server down.
func (d *daemon) run(ctx context.Context, listen string, stdout io.Writer) error {
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
	var wg sync.WaitGroup
	for _, t := range d.targets {
		wg.Go(func() { _ = t.prober.Run(probeCtx) })
	}
	d.logger.Info("probing", "targets", len(d.targets), "listen", l.Addr().String(),
		"max_connections", d.maxConns)
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-serveErr:
	}
	stopProbes()
	wg.Wait()
	d.logger.Info("stopped probing")
	return errors.Join(runErr, d.close())
}

// close shuts down everything newDaemon built: first the HTTP server,
// within its own bound (exporter.ServerLimits.ShutdownTimeout), after
// which clients still connected are cut; then the final OTLP flush, within
// flushTimeout.
func (d *daemon) close() error {
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
	for _, t := range d.targets {
		t.client.CloseIdleConnections()
	}
	return errors.Join(errs...)
}

// printURLs tells the user where to look.
func printURLs(w io.Writer, addr string, otlp bool) {
	host, port, _ := net.SplitHostPort(addr)
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	base := "http://" + net.JoinHostPort(host, port)
	fmt.Fprintf(w, "llmprober %s listening on %s\n", buildVersion(), addr)
	fmt.Fprintf(w, "  landing page: %s/\n  metrics:      %s/metrics\n  ready:        %s/-/ready\n", base, base, base)
	fmt.Fprintf(w, "  status API:   %s/api/v1/targets\n", base)
	if otlp {
		fmt.Fprintln(w, "  OTLP export:  on (OTEL_METRICS_EXPORTER=otlp)")
	}
}

// newLogger returns a text logger at level (debug, info, warn, error).
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))
}

// getenv looks a variable up in environ.
func getenv(environ map[string]string) func(string) string {
	return func(k string) string { return environ[k] }
}

// resolve reads the configuration from flags, environment and file.
func resolve(f commonFlags, environ map[string]string) (*config.Config, error) {
	env, err := config.FromEnv(environ)
	if err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	cfg, err := config.Resolve(env, config.Overrides{ConfigPath: f.config, ListenAddress: f.listen, LogLevel: f.logLevel})
	if err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	return cfg, nil
}

// runCmd is "llmprober run".
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer, environ map[string]string) error {
	var f commonFlags
	var sf shardFlags
	fs := newFlagSet("run", stderr, &f, true, true)
	addShardFlags(fs, &sf, environ)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := resolveShard(f, sf, environ, f.webConfig)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg.LogLevel)
	if sf.shards > 1 {
		logger.Info("probing one shard of the targets", "shard", sf.shard, "shards", sf.shards, "targets", len(cfg.Targets))
	}
	if len(cfg.Targets) == 0 {
		logger.Warn("no target hashes to this shard; serving metrics only", "shard", sf.shard, "shards", sf.shards)
	}
	d, err := newDaemon(ctx, cfg, logger, f.webConfig, getenv(environ))
	if err != nil {
		return err
	}
	return d.run(ctx, cfg.ListenAddress, stdout)
}

// resolveShard reads and checks the configuration, then keeps the targets
// of the shard sf selects.
func resolveShard(f commonFlags, sf shardFlags, environ map[string]string, webConfig string) (*config.Config, error) {
	if err := sf.validate(environ); err != nil {
		return nil, fmt.Errorf("%w: %w", errInvalid, err)
	}
	cfg, err := resolve(f, environ)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(cfg.Check(), validateServing(webConfig, getenv(environ))); err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	sf.apply(cfg)
	return cfg, nil
}

// checkCmd is "llmprober check": every problem is listed, one per line;
// a valid configuration's series budget is printed, and one above
// series_limit is refused with its numbers.
func checkCmd(args []string, stdout, stderr io.Writer, environ map[string]string) error {
	var f commonFlags
	var sf shardFlags
	fs := newFlagSet("check", stderr, &f, true, false)
	addShardFlags(fs, &sf, environ)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := resolveShard(f, sf, environ, "")
	if err != nil {
		return err
	}
	_, budget, err := metricsOptions(cfg, getenv(environ), nil)
	if err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	if err := checkBudget(cfg, budget); err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	names := make([]string, len(cfg.Targets))
	for i, t := range cfg.Targets {
		names[i] = t.Name
	}
	if sf.shards > 1 {
		fmt.Fprintf(stdout, "shard %d of %d (0-based): ", sf.shard, sf.shards)
	}
	fmt.Fprintf(stdout, "configuration is valid: %d target(s): %s\n", len(names), strings.Join(names, ", "))
	printBudget(stdout, cfg, budget)
	for _, w := range dashboardGaps(cfg) {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return nil
}

// validateServing checks what the configuration file does not hold: the web
// configuration file and the OpenTelemetry exporter variables.
func validateServing(webConfig string, getenv func(string) string) error {
	var errs []error
	if webConfig != "" {
		if err := exporter.CheckWebConfig(webConfig); err != nil {
			errs = append(errs, fmt.Errorf("--web-config-file %s: %w", webConfig, err))
		}
	}
	if err := exporter.ValidateEnv(getenv); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
