package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/daemon"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
)

// getenv looks a variable up in environ.
func getenv(environ map[string]string) func(string) string {
	return func(k string) string { return environ[k] }
}

// resolve reads the configuration from flags, environment and file; data,
// when not nil, is the file's contents already read (config.ReadFile).
func resolve(f commonFlags, environ map[string]string, data []byte) (*config.Config, error) {
	env, err := config.FromEnv(environ)
	if err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	cfg, err := config.Resolve(env, config.Overrides{ConfigPath: f.config, ListenAddress: f.listen, LogLevel: f.logLevel, ConfigData: data})
	if err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	return cfg, nil
}

// runCmd is "llmprober run".
func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer, environ map[string]string) error {
	var f commonFlags
	var sf shardFlags
	var wf webFlags
	fs := newFlagSet("run", stderr, &f, true, true)
	addShardFlags(fs, &sf, environ)
	wf.add(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	hosts, err := wf.validate()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return errUsage
	}
	file := configFile(f, environ)
	data, sum := readOnce(file)
	cfg, err := resolveShard(f, sf, environ, f.webConfig, data)
	if err != nil {
		return err
	}
	logger, level := wiring.NewLevelLogger(stderr, cfg.LogLevel)
	if sf.shards > 1 {
		logger.Info("probing one shard of the targets", "shard", sf.shard, "shards", sf.shards, "targets", len(cfg.Targets))
	}
	if len(cfg.Targets) == 0 {
		logger.Warn("no target hashes to this shard; serving metrics only", "shard", sf.shard, "shards", sf.shards)
	}
	defer daemonGC(environ, logger)()
	hangup, stopHangup := notifyHangup()
	defer stopHangup()
	d, err := daemon.New(ctx, daemon.Options{
		Config: cfg, Logger: logger, Level: level, WebConfigFile: f.webConfig, Getenv: getenv(environ),
		Reload: func(data []byte) (*config.Config, error) { return resolveShard(f, sf, environ, f.webConfig, data) },
		File:   file, Sum: sum, AutoReloadInterval: wf.autoReload, Hangup: hangup,
		EnableLifecycle: wf.lifecycle, AllowedHosts: hosts,
	})
	if err != nil {
		return err
	}
	return d.Run(ctx, cfg.ListenAddress, stdout)
}

// webFlags are run's flags of reloading and of the HTTP server's checks.
type webFlags struct {
	autoReload   time.Duration
	lifecycle    bool
	allowedHosts string
}

// add defines the flags on fs.
func (wf *webFlags) add(fs *flag.FlagSet) {
	fs.DurationVar(&wf.autoReload, "config.auto-reload-interval", 0,
		"poll the configuration file's checksum this often and reload when it changed (for Kubernetes ConfigMaps); 0, the default, is off")
	fs.BoolVar(&wf.lifecycle, "web.enable-lifecycle", false, "serve POST /-/reload (off by default: 403)")
	fs.StringVar(&wf.allowedHosts, "web.allowed-hosts", "",
		"comma-separated host names the status pages, the API and /config answer besides IP addresses, localhost, "+
			"this machine's name and the listen address's; * allows any")
}

// validate checks the flags and returns the allowed host names.
func (wf *webFlags) validate() ([]string, error) {
	if wf.autoReload < 0 {
		return nil, fmt.Errorf("--config.auto-reload-interval must not be negative, got %s", wf.autoReload)
	}
	var hosts []string
	for h := range strings.SplitSeq(wf.allowedHosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, "/@ ") {
			return nil, fmt.Errorf("--web.allowed-hosts: %q is not a host name (give names such as llmprober.monitoring.svc, without scheme or path)", h)
		}
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// configFile is the configuration file run reads: --config, else
// LLMPROBER_CONFIG; empty for a target set by the environment alone.
func configFile(f commonFlags, environ map[string]string) string {
	return firstNonEmpty(f.config, environ["LLMPROBER_CONFIG"])
}

// readOnce reads the configuration file at path once, through the bounded
// reader, for both its checksum and its parsing; nil and a zero checksum
// when there is no file or it cannot be read (then resolving reads it
// again and reports why).
func readOnce(path string) ([]byte, [32]byte) {
	if path == "" {
		return nil, [32]byte{}
	}
	data, err := config.ReadFile(path)
	if err != nil {
		return nil, [32]byte{}
	}
	return data, sha256.Sum256(data)
}

// notifyHangup delivers every SIGHUP on the returned channel (at most one
// waiting) until stop, after which SIGHUP is ignored again.
func notifyHangup() (<-chan struct{}, func()) {
	sig := make(chan os.Signal, 1)
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	signal.Notify(sig, syscall.SIGHUP)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-sig:
				select {
				case out <- struct{}{}:
				default:
				}
			case <-done:
				return
			}
		}
	})
	return out, func() {
		signal.Stop(sig)
		signal.Ignore(syscall.SIGHUP)
		close(done)
		wg.Wait()
	}
}

// resolveShard reads (unless data holds the file's contents) and checks the
// configuration, then keeps the targets of the shard sf selects.
func resolveShard(f commonFlags, sf shardFlags, environ map[string]string, webConfig string, data []byte) (*config.Config, error) {
	if err := sf.validate(environ); err != nil {
		return nil, fmt.Errorf("%w: %w", errInvalid, err)
	}
	cfg, err := resolve(f, environ, data)
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
	cfg, err := resolveShard(f, sf, environ, "", nil)
	if err != nil {
		return err
	}
	_, budget, err := wiring.MetricsOptions(cfg, getenv(environ), nil)
	if err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	if err := wiring.CheckBudget(cfg, budget); err != nil {
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
	wiring.PrintBudget(stdout, cfg, budget)
	for _, w := range wiring.DashboardGaps(cfg) {
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
