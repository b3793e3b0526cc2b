package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// Bounds of a benchmark run, so that the records kept in memory stay small.
const (
	// benchMaxDuration bounds --duration.
	benchMaxDuration = time.Hour
	// benchMaxRequests bounds rate × duration, in requests.
	benchMaxRequests = 10_000_000
)

// benchTarget is the name of the one target a benchmark probes.
const benchTarget = "bench"

// benchFlags are the settings of "llmprober bench".
type benchFlags struct {
	url, model, api, cpuProfile string
	rate                        float64
	duration, timeout           time.Duration
	stream, ignoreEOS, json     bool
	outputTokens, promptTokens  int
	maxConcurrency, maxQueue    int
}

// benchCmd is "llmprober bench": one constant-rate target against a URL for
// a bounded time, without the HTTP server; every request's measurements are
// kept in memory and summarised at the end.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if usesConfig(args) {
		return benchConfigCmd(ctx, args, stdout, stderr)
	}
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	t, err := benchConfigTarget(f)
	if err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	run, err := runBench(ctx, t, f, stderr)
	if err != nil {
		return err
	}
	rep := newBenchReport(run)
	if f.json {
		return rep.writeJSON(stdout)
	}
	rep.writeText(stdout, describeBench(f))
	return nil
}

// parseBenchFlags reads and checks the command line of "llmprober bench".
func parseBenchFlags(args []string, stderr io.Writer) (benchFlags, error) {
	var f benchFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.url, "target-url", "", "OpenAI-compatible base URL with its version path (http://127.0.0.1:8000/v1); required")
	fs.StringVar(&f.model, "model", "", "model name sent in requests; required")
	fs.StringVar(&f.api, "api", config.APIChat, "chat or completions")
	fs.Float64Var(&f.rate, "rate", 0, "constant request rate, requests per second; required")
	fs.DurationVar(&f.duration, "duration", 0, "how long requests are sent; required, at most 1h")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "bound of each request")
	fs.BoolVar(&f.stream, "stream", false, "ask for streamed (SSE) responses")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, `send "ignore_eos": true (vLLM, SGLang, llama.cpp)`)
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.StringVar(&f.cpuProfile, "cpu-profile", "", "write a CPU profile of the run (pprof format) to this file")
	fs.IntVar(&f.outputTokens, "output-tokens", 64, "output tokens asked for per request")
	fs.IntVar(&f.promptTokens, "prompt-tokens", 32, "prompt length per request, in tokens")
	fs.IntVar(&f.maxConcurrency, "max-concurrency", 1000, "requests in flight at most")
	fs.IntVar(&f.maxQueue, "max-queue", 1000, "due requests that may wait for a slot before being dropped")
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return f, errUsage
	}
	return f, nil
}

// check rejects missing settings and runs that would keep too much in memory.
func (f benchFlags) check() error {
	var errs []error
	if f.url == "" || f.model == "" {
		errs = append(errs, errors.New("--target-url and --model are required"))
	}
	if !(f.rate > 0) {
		errs = append(errs, fmt.Errorf("--rate must be positive, got %v", f.rate))
	}
	if f.duration <= 0 || f.duration > benchMaxDuration {
		errs = append(errs, fmt.Errorf("--duration must be within (0, %s], got %s", benchMaxDuration, f.duration))
	}
	if f.rate*f.duration.Seconds() > benchMaxRequests {
		errs = append(errs, fmt.Errorf("--rate × --duration must be at most %d requests", benchMaxRequests))
	}
	return errors.Join(errs...)
}

// benchConfigTarget is the configured target of a benchmark: no readiness
// gate, fixed prompt and output lengths, constant rate.
func benchConfigTarget(f benchFlags) (config.Target, error) {
	stream, queue := f.stream, f.maxQueue
	cfg := config.Config{Targets: []config.Target{{
		Name: benchTarget, BaseURL: f.url, Model: f.model, API: f.api, Stream: &stream,
		Timeout: f.timeout, Tag: benchTarget,
		Readiness: config.Readiness{Path: "none"},
		Workload: config.Workload{
			PromptTokens: config.Fixed(f.promptTokens), OutputTokens: config.Fixed(f.outputTokens),
			IgnoreEOS: f.ignoreEOS, Seed: 1,
		},
		Schedule: config.Schedule{
			Strategy: config.StrategyConstant, Rate: f.rate, MaxConcurrency: f.maxConcurrency, MaxQueue: &queue,
		},
	}}}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		return config.Target{}, err
	}
	return cfg.Targets[0], nil
}

// runBench wires the target as the daemon does (OpenTelemetry instruments
// and error logs included, no HTTP server), probes it for f.duration, and
// returns what the report needs. Requests in flight at the end are cancelled
// and recorded as incomplete.
func runBench(ctx context.Context, t config.Target, f benchFlags, stderr io.Writer) (benchRun, error) {
	before := readUsage()
	metrics, err := exporter.NewMetrics(ctx, exporter.Options{Version: buildVersion(), Revision: revision, Getenv: func(string) string { return "" }})
	if err != nil {
		return benchRun{}, err
	}
	defer func() { _ = metrics.Shutdown(context.Background()) }()
	obs, err := exporter.NewObserver(metrics, []exporter.Target{exporterTarget(&t)})
	if err != nil {
		return benchRun{}, err
	}
	defer func() { _ = obs.Close() }()
	clk := clock.Precise()
	logger := newLogger(stderr, "warn")
	logs := newLogObserver(logger, clk.Now)
	col := newBenchCollector(int(f.rate*f.duration.Seconds()) + 1)
	w, err := wireTarget(&t, clk, probe.Observers{obs, logs, col}, logs, logger)
	if err != nil {
		return benchRun{}, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	defer w.client.CloseIdleConnections()
	stopProfile, err := startCPUProfile(f.cpuProfile)
	if err != nil {
		return benchRun{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, f.duration)
	defer cancel()
	start := clk.Now()
	_ = w.prober.Run(runCtx)
	if err := stopProfile(); err != nil {
		return benchRun{}, err
	}
	window := f.duration
	if ctx.Err() != nil { // interrupted: the window is what actually ran
		window = min(clk.Now().Sub(start), f.duration)
	}
	after := readUsage()
	return col.run(f.rate, window, after.cpu-before.cpu, after.peakRSS), nil
}

// startCPUProfile starts writing a CPU profile to path, when not empty, and
// returns the function that stops it and closes the file.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("could not create CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(file); err != nil {
		return nil, errors.Join(fmt.Errorf("could not start CPU profile: %w", err), file.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := file.Close(); err != nil {
			return fmt.Errorf("could not write CPU profile: %w", err)
		}
		return nil
	}, nil
}

// describeBench is the report's title line.
func describeBench(f benchFlags) string {
	mode := "non-streamed"
	if f.stream {
		mode = "streamed"
	}
	return fmt.Sprintf("llmprober bench: %s, constant %g req/s for %s, %s %s, %d prompt and %d output tokens",
		f.url, f.rate, f.duration, mode, f.api, f.promptTokens, f.outputTokens)
}

// benchCollector is a probe.Observer that keeps what the report needs of
// every request: one small sample per record instead of the record itself,
// so the peak memory measured is the prober's own.
type benchCollector struct {
	mu        sync.Mutex
	scheduled int64
	dropped   map[probe.DropReason]int64
	samples   []benchSample
}

var _ probe.Observer = (*benchCollector)(nil)

// newBenchCollector returns a collector with room for expected samples.
func newBenchCollector(expected int) *benchCollector {
	return &benchCollector{dropped: map[probe.DropReason]int64{}, samples: make([]benchSample, 0, expected)}
}

// Scheduled implements probe.Observer.
func (c *benchCollector) Scheduled(string) {
	c.mu.Lock()
	c.scheduled++
	c.mu.Unlock()
}

// Dropped implements probe.Observer.
func (c *benchCollector) Dropped(_ string, reason probe.DropReason) {
	c.mu.Lock()
	c.dropped[reason]++
	c.mu.Unlock()
}

// Started implements probe.Observer.
func (*benchCollector) Started(string) {}

// State implements probe.Observer.
func (*benchCollector) State(string, probe.TargetState, time.Duration) {}

// Finished implements probe.Observer.
func (c *benchCollector) Finished(rec *probe.Record) {
	s := sampleOf(rec)
	c.mu.Lock()
	c.samples = append(c.samples, s)
	c.mu.Unlock()
}

// run is everything collected, as the input of the report.
func (c *benchCollector) run(rate float64, window, cpu time.Duration, peakRSS int64) benchRun {
	c.mu.Lock()
	defer c.mu.Unlock()
	return benchRun{
		Rate: rate, Window: window, Scheduled: c.scheduled, Dropped: c.dropped, Samples: c.samples,
		CPU: cpu, PeakRSS: peakRSS,
	}
}
