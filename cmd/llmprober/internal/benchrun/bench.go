// Package benchrun is the engine of "llmprober bench": one constant-rate
// target wired as the daemon wires it, probed for a bounded time, and the
// report of how well its schedule was kept.
package benchrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// Bounds of a benchmark run, so that the records kept in memory stay small.
const (
	// MaxDuration bounds --duration.
	MaxDuration = time.Hour
	// MaxRequests bounds rate × duration, in requests.
	MaxRequests = 10_000_000
)

// benchTarget is the name of the one target a benchmark probes.
const benchTarget = "bench"

// Settings are the settings of "llmprober bench": the target's base URL,
// model, API and request bound, the constant rate (requests per second)
// and run duration, the token counts and concurrency bounds, and an
// optional CPU profile file.
type Settings struct {
	URL, Model, API, CPUProfile string
	Rate                        float64
	Duration, Timeout           time.Duration
	Stream, IgnoreEOS           bool
	OutputTokens, PromptTokens  int
	MaxConcurrency, MaxQueue    int
}

// Check rejects missing settings and runs that would keep too much in memory.
func (f Settings) Check() error {
	var errs []error
	if f.URL == "" || f.Model == "" {
		errs = append(errs, errors.New("--target-url and --model are required"))
	}
	if !(f.Rate > 0) {
		errs = append(errs, fmt.Errorf("--rate must be positive, got %v", f.Rate))
	}
	if f.Duration <= 0 || f.Duration > MaxDuration {
		errs = append(errs, fmt.Errorf("--duration must be within (0, %s], got %s", MaxDuration, f.Duration))
	}
	if f.Rate*f.Duration.Seconds() > MaxRequests {
		errs = append(errs, fmt.Errorf("--rate × --duration must be at most %d requests", MaxRequests))
	}
	return errors.Join(errs...)
}

// Target is the configured target of a benchmark: no readiness
// gate, fixed prompt and output lengths, constant rate.
func (f Settings) Target() (config.Target, error) {
	stream, queue := f.Stream, f.MaxQueue
	cfg := config.Config{Targets: []config.Target{{
		Name: benchTarget, BaseURL: f.URL, Model: f.Model, API: f.API, Stream: &stream,
		Timeout: f.Timeout, Tag: benchTarget,
		Readiness: config.Readiness{Path: "none"},
		Workload: config.Workload{
			PromptTokens: config.Fixed(f.PromptTokens), OutputTokens: config.Fixed(f.OutputTokens),
			IgnoreEOS: f.IgnoreEOS, Seed: 1,
		},
		Schedule: config.Schedule{
			Strategy: config.StrategyConstant, Rate: f.Rate, MaxConcurrency: f.MaxConcurrency, MaxQueue: &queue,
		},
	}}}
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		return config.Target{}, err
	}
	return cfg.Targets[0], nil
}

// Execute wires the target as the daemon does (OpenTelemetry instruments
// and error logs included, no HTTP server), probes it for f.Duration, and
// returns what the report needs. Requests in flight at the end are cancelled
// and recorded as incomplete.
func Execute(ctx context.Context, t config.Target, f Settings, stderr io.Writer) (Result, error) {
	before := readUsage()
	metrics, err := exporter.NewMetrics(ctx, exporter.Options{Version: buildinfo.Version(), Revision: buildinfo.LinkRevision(), Getenv: func(string) string { return "" }})
	if err != nil {
		return Result{}, err
	}
	defer func() { _ = metrics.Shutdown(context.Background()) }()
	obs, err := exporter.NewObserver(metrics, []exporter.Target{wiring.ExporterTarget(&t)})
	if err != nil {
		return Result{}, err
	}
	defer func() { _ = obs.Close() }()
	clk := clock.Precise()
	logger := wiring.NewLogger(stderr, "warn")
	logs := wiring.NewLogObserver(logger, clk.Now)
	col := newBenchCollector(int(f.Rate*f.Duration.Seconds()) + 1)
	w, err := wiring.WireTarget(&t, clk, probe.Observers{obs, logs, col}, logs, logger)
	if err != nil {
		return Result{}, fmt.Errorf("%w:\n%w", wiring.ErrInvalid, err)
	}
	defer w.Client.CloseIdleConnections()
	stopProfile, err := startCPUProfile(f.CPUProfile)
	if err != nil {
		return Result{}, err
	}
	runCtx, cancel := context.WithTimeout(ctx, f.Duration)
	defer cancel()
	start := clk.Now()
	_ = w.Prober.Run(runCtx)
	if err := stopProfile(); err != nil {
		return Result{}, err
	}
	window := f.Duration
	if ctx.Err() != nil { // interrupted: the window is what actually ran
		window = min(clk.Now().Sub(start), f.Duration)
	}
	after := readUsage()
	return col.run(f.Rate, window, after.cpu-before.cpu, after.peakRSS), nil
}

// ErrOutputPath is wrapped by the error of an output file (--cpu-profile)
// that cannot be created, found before any request: bad input.
var ErrOutputPath = errors.New("could not create CPU profile")

// startCPUProfile starts writing a CPU profile to path, when not empty, and
// returns the function that stops it and renames the complete profile onto
// path (a ReportFile: an interrupted run leaves the previous file intact).
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	file, err := CreateReport(path)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrOutputPath, path, err)
	}
	if err := pprof.StartCPUProfile(file); err != nil {
		file.Abort()
		return nil, fmt.Errorf("could not start CPU profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := file.Commit(); err != nil {
			return fmt.Errorf("could not write CPU profile: %w", err)
		}
		return nil
	}, nil
}

// Describe is the report's title line.
func (f Settings) Describe() string {
	mode := "non-streamed"
	if f.Stream {
		mode = "streamed"
	}
	return fmt.Sprintf("llmprober bench: %s, constant %g req/s for %s, %s %s, %d prompt and %d output tokens",
		f.URL, f.Rate, f.Duration, mode, f.API, f.PromptTokens, f.OutputTokens)
}

// benchCollector is a probe.Observer that keeps what the report needs of
// every request: one small sample per record instead of the record itself,
// so the peak memory measured is the prober's own.
type benchCollector struct {
	mu        sync.Mutex
	scheduled int64
	dropped   map[probe.DropReason]int64
	samples   []Sample
}

var _ probe.Observer = (*benchCollector)(nil)

// newBenchCollector returns a collector with room for expected samples.
func newBenchCollector(expected int) *benchCollector {
	return &benchCollector{dropped: map[probe.DropReason]int64{}, samples: make([]Sample, 0, expected)}
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
func (c *benchCollector) run(rate float64, window, cpu time.Duration, peakRSS int64) Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Result{
		Rate: rate, Window: window, Scheduled: c.scheduled, Dropped: c.dropped, Samples: c.samples,
		CPU: cpu, PeakRSS: peakRSS,
	}
}
