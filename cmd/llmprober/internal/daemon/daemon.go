// Package daemon is a running llmprober: one exporter, its HTTP server and
// the probers of the configured targets, from start to the final flush.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// Daemon is one running llmprober: its metrics, HTTP server and probers.
type Daemon struct {
	logger   *slog.Logger
	metrics  *exporter.Metrics
	observer *exporter.Observer
	windows  *exporter.Windows
	server   *exporter.Server
	targets  []*wiring.Wired
	// flushTimeout bounds the final OTLP flush.
	flushTimeout time.Duration
	// maxConns is the HTTP server's connection cap.
	maxConns int
}

// New wires every configured target to one exporter, whose
// OpenTelemetry errors and SDK messages go to logger, redacted and
// rate-limited.
func New(ctx context.Context, cfg *config.Config, logger *slog.Logger, webConfig string, getenv func(string) string) (*Daemon, error) {
	opts, budget, err := wiring.MetricsOptions(cfg, getenv, logger)
	if err != nil {
		return nil, err
	}
	if err := wiring.CheckBudget(cfg, budget); err != nil {
		return nil, fmt.Errorf("%w:\n%w", wiring.ErrInvalid, err)
	}
	opts.Errors = exporter.NewErrorLog(logger, getenv, nil)
	opts.Errors.Install()
	metrics, err := exporter.NewMetrics(ctx, opts)
	if err != nil {
		return nil, err
	}
	infos := wiring.ExporterTargets(cfg)
	d := &Daemon{logger: logger, metrics: metrics, flushTimeout: exporter.FlushTimeout(getenv)}
	if d.observer, err = exporter.NewObserver(metrics, infos); err != nil {
		return nil, errors.Join(err, d.close())
	}
	clk := clock.Precise()
	logs := wiring.NewLogObserver(logger, clk.Now)
	stores, err := wiring.NewWindowStores(cfg, clk)
	if err != nil {
		return nil, errors.Join(err, d.close())
	}
	if d.windows, err = exporter.NewWindows(metrics, d.observer, stores); err != nil {
		return nil, errors.Join(err, d.close())
	}
	for i := range cfg.Targets {
		obs := probe.Observers{d.observer, logs, stores[i]}
		w, err := wiring.WireTarget(&cfg.Targets[i], clk, obs, logs, logger)
		if err != nil {
			return nil, errors.Join(err, d.close())
		}
		d.targets = append(d.targets, w)
	}
	d.maxConns = wiring.ServerConnections(wiring.OpenFileLimit(), cfg.Targets)
	d.server = exporter.NewServer(exporter.ServerOptions{
		Metrics: metrics, Observer: d.observer, Windows: d.windows, WebConfigFile: webConfig, Version: buildinfo.Version(), Logger: logger,
		Limits: exporter.ServerLimits{MaxConnections: d.maxConns},
	})
	d.windows.Register(d.server)
	return d, nil
}

// Run serves HTTP on listen and probes every target until ctx ends, then
// stops the probers (requests in flight become incomplete), flushes the
// metrics and shuts the server down.
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
	var wg sync.WaitGroup
	for _, t := range d.targets {
		wg.Go(func() { _ = t.Prober.Run(probeCtx) })
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
	for _, t := range d.targets {
		t.Client.CloseIdleConnections()
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
	fmt.Fprintf(w, "llmprober %s listening on %s\n", buildinfo.Version(), addr)
	fmt.Fprintf(w, "  landing page: %s/\n  metrics:      %s/metrics\n  ready:        %s/-/ready\n", base, base, base)
	fmt.Fprintf(w, "  status API:   %s/api/v1/targets\n", base)
	if otlp {
		fmt.Fprintln(w, "  OTLP export:  on (OTEL_METRICS_EXPORTER=otlp)")
	}
}
