package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/benchrun"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// benchConfigFlags are the settings of "llmprober bench --config FILE": a
// finite benchmark of one configured target.
type benchConfigFlags struct {
	config, target, output, csv, html, warmup, cooldown string
	confidence                                          string
	maxDuration                                         time.Duration
	maxRequests, maxErrors                              int
	maxErrorRate                                        float64
	gate, quiet                                         bool
	gateInconclusive                                    string
	profile, objective                                  string
	sweepRates, goodputSteps                            int
}

// usesConfig reports whether a bench command line names a configuration
// file, which selects the benchmark of a configured target.
func usesConfig(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "config" {
			return true
		}
		if a == "--" {
			return false
		}
	}
	return false
}

// parseBenchConfigFlags reads the command line of a configured benchmark.
func parseBenchConfigFlags(args []string, stderr io.Writer) (benchConfigFlags, error) {
	var f benchConfigFlags
	fs := benchConfigFlagSet(&f, stderr)
	if err := parseFlags(fs, args); err != nil {
		return f, err
	}
	if err := f.check(); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return f, errUsage
	}
	return f, nil
}

// benchConfigFlagSet is the flag set of a configured benchmark, writing
// to w; its usage lists the flags of both kinds of benchmark (benchUsage).
func benchConfigFlagSet(f *benchConfigFlags, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() { benchUsage(w) }
	fs.StringVar(&f.config, "config", "", "configuration file whose target is benchmarked")
	fs.StringVar(&f.target, "target", "", "name of the target to benchmark; required when the file has several")
	fs.DurationVar(&f.maxDuration, "max-duration", 0, "stop sending this long after the target is ready; in-flight requests are then incomplete (at most 1h)")
	fs.IntVar(&f.maxRequests, "max-requests", 0, "send this many requests at most (a request dropped for a full queue does not count), then wait for them to end")
	fs.IntVar(&f.maxErrors, "max-errors", 0, "stop early once this many requests errored (in-flight requests then incomplete)")
	fs.Float64Var(&f.maxErrorRate, "max-error-rate", 0,
		fmt.Sprintf("stop early once more than this share of the last %d finished requests errored, in (0, 1]", benchErrorRateSample))
	fs.StringVar(&f.warmup, "warmup", "", "excluded start of the run: a duration (30s), a request count (100: measuring starts at the "+
		"start of the 101st request) or a share of --max-duration (10%); default the file's warmup")
	fs.StringVar(&f.cooldown, "cooldown", "", "excluded end of the run: a duration (30s) before the run's end, a request count (100: "+
		"measuring ends at the start of the 100th request from the last) or a share of --max-duration (10%); default none")
	fs.StringVar(&f.confidence, "confidence", "", "level of the confidence intervals, or null for none; default the file's confidence")
	fs.StringVar(&f.profile, "profile", profileSingle, "single: the target's own strategy; sweep: synchronous, throughput, then "+
		"--sweep-rates constant rates between them; goodput: the highest load whose attainment interval clears the target")
	fs.IntVar(&f.sweepRates, "sweep-rates", 8, "constant-rate benchmarks of a sweep")
	fs.IntVar(&f.goodputSteps, "goodput-steps", 10, "benchmarks a goodput search runs at most")
	fs.StringVar(&f.objective, "objective", "", "objective set a goodput search judges; default the target's first")
	fs.StringVar(&f.output, "output", "", "write the JSON report to this file")
	fs.StringVar(&f.csv, "csv", "", "write the CSV report (a header and one row per benchmark) to this file")
	fs.StringVar(&f.html, "html", "", "write the HTML report (latency distributions and, for a sweep or goodput search, the curves against request rate) to this file")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress display while running (shown only when stdout and stderr are terminals); the report is still printed")
	fs.BoolVar(&f.gate, "gate", false, "SLO gate: exit 0 when every objective set is met, 1 when one is breached, 3 when none is but one is inconclusive")
	fs.StringVar(&f.gateInconclusive, "gate-inconclusive", "", "with --gate, what an inconclusive verdict does: pass (exit 0) or fail (exit 1); default exit 3")
	return fs
}

// check rejects limits that leave a run unbounded or too large.
func (f benchConfigFlags) check() error {
	var errs []error
	if f.maxDuration < 0 || f.maxDuration > benchrun.MaxDuration {
		errs = append(errs, fmt.Errorf("--max-duration must be within (0, %s], got %s", benchrun.MaxDuration, f.maxDuration))
	}
	if f.maxRequests < 0 || f.maxRequests > benchrun.MaxRequests {
		errs = append(errs, fmt.Errorf("--max-requests must be within [1, %d], got %d", benchrun.MaxRequests, f.maxRequests))
	}
	if f.maxErrors < 0 || (f.maxRequests > 0 && f.maxErrors > f.maxRequests) {
		errs = append(errs, fmt.Errorf("--max-errors must be within [1, --max-requests], got %d", f.maxErrors))
	}
	if f.maxErrorRate != 0 && !(f.maxErrorRate > 0 && f.maxErrorRate <= 1) {
		errs = append(errs, fmt.Errorf("--max-error-rate must be within (0, 1], got %v", f.maxErrorRate))
	}
	if f.maxDuration == 0 && f.maxRequests == 0 {
		errs = append(errs, errors.New("--max-duration or --max-requests is required"))
	}
	warmup, werr := f.bound("--warmup", f.warmup)
	cooldown, cerr := f.bound("--cooldown", f.cooldown)
	errs = append(errs, werr, cerr)
	if werr == nil && cerr == nil {
		errs = append(errs, checkBounds(warmup, cooldown, f.length(), f.maxRequests))
	}
	if _, _, err := f.confidenceLevel(); err != nil {
		errs = append(errs, err)
	}
	if !slices.Contains(benchProfiles, f.profile) {
		errs = append(errs, fmt.Errorf("--profile %s: want one of %s", f.profile, strings.Join(benchProfiles, ", ")))
	}
	if f.gate && f.profile != profileSingle {
		errs = append(errs, fmt.Errorf("--gate judges one benchmark: it needs --profile %s", profileSingle))
	}
	if f.sweepRates < 1 || f.sweepRates > maxSweepRates {
		errs = append(errs, fmt.Errorf("--sweep-rates must be within [1, %d], got %d", maxSweepRates, f.sweepRates))
	}
	if f.goodputSteps < 2 || f.goodputSteps > maxGoodputSteps {
		errs = append(errs, fmt.Errorf("--goodput-steps must be within [2, %d], got %d", maxGoodputSteps, f.goodputSteps))
	}
	if !slices.Contains([]string{"", gateInconclusivePass, gateInconclusiveFail}, f.gateInconclusive) {
		errs = append(errs, fmt.Errorf("--gate-inconclusive %s: want pass or fail", f.gateInconclusive))
	} else if f.gateInconclusive != "" && !f.gate {
		errs = append(errs, errors.New("--gate-inconclusive needs --gate"))
	}
	return errors.Join(errs...)
}

// length is the longest the run can send: --max-duration, or the bound of
// every run.
func (f benchConfigFlags) length() time.Duration {
	if f.maxDuration > 0 {
		return f.maxDuration
	}
	return benchrun.MaxDuration
}

// bound parses the --warmup or --cooldown value raw (see
// parseBenchBound); empty is none.
func (f benchConfigFlags) bound(name, raw string) (benchBound, error) {
	if raw == "" {
		return benchBound{}, nil
	}
	return parseBenchBound(name, raw, f.length(), f.maxDuration > 0)
}

// confidenceLevel parses --confidence: set is false when the flag is not
// given; level 0 is null (no intervals).
func (f benchConfigFlags) confidenceLevel() (level float64, set bool, err error) {
	switch f.confidence {
	case "":
		return 0, false, nil
	case "null":
		return 0, true, nil
	}
	c, err := strconv.ParseFloat(f.confidence, 64)
	if err != nil || !(c > 0 && c < 1) {
		return 0, false, fmt.Errorf("--confidence %s: want a level in (0, 1) like 0.95, or null", f.confidence)
	}
	return c, true, nil
}

// benchPlan is a validated configured benchmark: the target and how its
// run is bounded and measured.
type benchPlan struct {
	flags      benchConfigFlags
	target     config.Target
	objectives []slo.Objective
	confidence float64
	// warmup is the warmup duration (the file's, or --warmup's), warmupN
	// the warmup in requests (--warmup N; warmup is then 0), cooldown the
	// --cooldown.
	warmup   time.Duration
	warmupN  int
	cooldown benchBound
	// window is the length of the store's one window, the run's bound.
	window time.Duration
	// output, csv and html are the report files, nil when not asked for.
	output, csv, html *benchrun.ReportFile
	// progress is where the progress display is drawn, nil for none.
	progress io.Writer
}

// newBenchPlan loads the configuration and checks everything a run needs,
// before any request is sent; its errors are bad input.
func newBenchPlan(f benchConfigFlags) (*benchPlan, error) {
	cfg, err := config.Load(f.config)
	if err != nil {
		return nil, err
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	t, err := pickTarget(cfg, f.target)
	if err != nil {
		return nil, err
	}
	p := &benchPlan{flags: f, target: t, objectives: t.SLOObjectives(), confidence: cfg.ConfidenceLevel(),
		warmup: cfg.Warmup, window: f.length()}
	if c, set, _ := f.confidenceLevel(); set {
		p.confidence = c
	}
	if f.warmup != "" {
		b, _ := f.bound("--warmup", f.warmup)
		p.warmup, p.warmupN = b.d, b.n
	}
	p.cooldown, _ = f.bound("--cooldown", f.cooldown)
	if err := p.checkProfile(); err != nil {
		return nil, err
	}
	if f.gate && len(p.objectives) == 0 {
		return nil, fmt.Errorf("--gate: target %s has no objective sets to judge", t.Name)
	}
	if p.warmup+p.cooldown.d >= p.window {
		return nil, fmt.Errorf("warmup %s and cooldown %s: must be shorter than the run (%s)", p.warmup, p.cooldown.d, p.window)
	}
	return p, nil
}

// openReports creates the temporary files of the reports asked for, so
// that a path that cannot be written is found before any request; its
// errors name the flag and the path.
func (p *benchPlan) openReports() error {
	for _, r := range []struct {
		flag, path string
		file       **benchrun.ReportFile
	}{{"--output", p.flags.output, &p.output}, {"--csv", p.flags.csv, &p.csv}, {"--html", p.flags.html, &p.html}} {
		if r.path == "" {
			continue
		}
		f, err := benchrun.CreateReport(r.path)
		if err != nil {
			p.closeFiles()
			return fmt.Errorf("could not create %s report %s: %w", r.flag, r.path, err)
		}
		*r.file = f
	}
	return nil
}

// closeFiles removes the temporary files of the reports not written,
// leaving their paths as they were.
func (p *benchPlan) closeFiles() {
	for _, f := range []*benchrun.ReportFile{p.output, p.csv, p.html} {
		if f != nil {
			f.Abort()
		}
	}
}

// writeFiles writes the JSON, CSV and HTML reports asked for, each renamed
// onto its path once complete; the HTML one is drawn from the JSON
// document.
func (p *benchPlan) writeFiles(results []*benchResult, search *goodputSearch) error {
	defer p.closeFiles()
	doc, err := benchJSON(results, search)
	if err != nil {
		return err
	}
	if p.output != nil {
		if _, err := p.output.Write(doc); err != nil {
			return fmt.Errorf("could not write %s: %w", p.flags.output, err)
		}
		if err := p.output.Commit(); err != nil {
			return err
		}
	}
	if p.html != nil {
		if err := writeBenchHTML(p.html, doc); err != nil {
			return fmt.Errorf("could not write %s: %w", p.flags.html, err)
		}
		if err := p.html.Commit(); err != nil {
			return err
		}
	}
	if p.csv != nil {
		if err := writeBenchCSV(p.csv, results); err != nil {
			return fmt.Errorf("could not write %s: %w", p.flags.csv, err)
		}
		return p.csv.Commit()
	}
	return nil
}

// pickTarget returns the target named name, or the only one when name is
// empty.
func pickTarget(cfg *config.Config, name string) (config.Target, error) {
	var names []string
	for _, t := range cfg.Targets {
		if t.Name == name || (name == "" && len(cfg.Targets) == 1) {
			return t, nil
		}
		names = append(names, t.Name)
	}
	if name == "" {
		return config.Target{}, fmt.Errorf("--target: the configuration has %d targets (%s); name one", len(names), strings.Join(names, ", "))
	}
	return config.Target{}, fmt.Errorf("--target %s: no such target in the configuration (%s)", name, strings.Join(names, ", "))
}

// benchConfigCmd is "llmprober bench --config FILE": one benchmark of a
// configured target, reported on stdout and, with --output, as JSON.
func benchConfigCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchConfigFlags(args, stderr)
	if err != nil {
		return err
	}
	plan, err := newBenchPlan(f)
	if err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	if err := plan.openReports(); err != nil {
		return badInput(err)
	}
	if showProgress(f.quiet, stdout, stderr) {
		plan.progress = stderr
	}
	results, search, err := plan.runProfile(ctx, stderr)
	if err != nil {
		plan.closeFiles()
		return fmt.Errorf("%w; no report written", err)
	}
	for _, r := range results {
		r.writeConsole(stdout)
		fmt.Fprintln(stdout)
	}
	if f.profile == profileSweep {
		writeSweepTable(stdout, results)
	}
	if search != nil {
		search.writeConsole(stdout)
	}
	if err := plan.writeFiles(results, search); err != nil {
		return err
	}
	last := results[len(results)-1]
	if last.stop == benchStopInterrupted {
		return errBenchInterrupted
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w while the next benchmark waited for its target: the report holds the %d benchmark(s) that ran",
			errBenchWaitInterrupted, len(results))
	}
	if f.gate {
		return last.gate(stdout)
	}
	return nil
}

// errBenchInterrupted ends a benchmark stopped by a signal, after its
// partial report (exit status 1).
var errBenchInterrupted = errors.New("benchmark interrupted: the partial report is marked interrupted")

// benchResult is one finished benchmark.
type benchResult struct {
	plan *benchPlan
	// snap is the measurement window, [measure_start, the run's end].
	snap *window.Snapshot
	// start is when the prober began (ready), end when the last request ended.
	start, end time.Time
	// stop says why the run ended: one of the benchStop values.
	stop     string
	pacing   benchrun.Report
	realtime bool
	// profile is the --profile the benchmark belongs to, label what it is
	// within it ("synchronous", "constant 12.5/s", "concurrency 8").
	profile, label string
}

// Why a run ended.
const (
	benchStopDuration    = "max_duration"
	benchStopRequests    = "max_requests"
	benchStopErrors      = "max_errors"
	benchStopErrorRate   = "max_error_rate"
	benchStopStrategy    = "strategy_done"
	benchStopInterrupted = "interrupted"
)

// run sends the target's requests until a limit, recording them into a
// window store that spans the run, and returns the measurement window.
func (p *benchPlan) run(ctx context.Context, stderr io.Writer) (*benchResult, error) {
	clk := clock.Precise()
	t := p.target
	store, err := window.NewStore(t.Name, window.Settings{
		Windows: []time.Duration{p.window}, Confidence: p.confidence, Warmup: p.warmup, CacheTTL: -1, Clock: clk,
		// The largest cap the windows take: every record is kept exactly
		// unless more than MaxSampleCap ÷ Buckets end within one 720th of
		// the run's bound; the report then says sampled, and its estimates
		// are flagged.
		SampleCap: window.MaxSampleCap, Objectives: p.objectives,
	})
	if err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	limits := p.newLimits(&t, cancel, clk)
	defer limits.stop()
	expected := p.flags.maxRequests
	if expected == 0 {
		expected = 1024
	}
	col := benchrun.NewCollector(expected)
	logger := wiring.NewLogger(stderr, "warn")
	logs := wiring.NewLogObserver(logger, clk.Now)
	observers := probe.Observers{store, col, logs, limits}
	var progress *benchProgress
	if p.progress != nil {
		progress = startBenchProgress(p.progress, scheduleLabel(&t.Schedule), p.flags.maxRequests, p.flags.maxDuration, clk)
		defer progress.finish()
		observers = append(observers, progress)
	}
	w, err := wiring.WireLimitedTarget(&t, clk, observers, logs, logger, uint64(p.flags.maxRequests))
	if err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	defer w.Client.CloseIdleConnections()
	cpuBefore, _ := benchrun.ReadUsage()
	limits.waitReady()
	runErr := w.Prober.Run(runCtx)
	end := clk.Now()
	if progress != nil {
		progress.finish()
	}
	cpuAfter, peakRSS := benchrun.ReadUsage()
	res := &benchResult{plan: p, end: end, realtime: t.Backend == config.BackendWebSocket, profile: p.flags.profile,
		label: scheduleLabel(&t.Schedule)}
	res.start = limits.readyAt()
	if res.start.IsZero() {
		return nil, limits.notReady(ctx, &t, runErr)
	}
	res.stop = limits.reason(ctx, runErr, p.flags.maxRequests > 0)
	res.snap = p.measure(store, limits.sortedStarts(), end)
	rate := 0.0
	if slices.Contains([]string{config.StrategyConstant, config.StrategyPoisson}, t.Schedule.Strategy) {
		rate = t.Schedule.Rate
	}
	res.pacing = benchrun.NewReport(col.Result(rate, end.Sub(res.start), cpuAfter-cpuBefore, peakRSS))
	return res, nil
}

// newLimits returns the limits of a run of t, which cancel ends.
func (p *benchPlan) newLimits(t *config.Target, cancel context.CancelFunc, clk clock.Clock) *benchLimits {
	return &benchLimits{duration: p.flags.maxDuration, cancel: cancel, target: t.Name, clk: clk,
		maxErrors: int64(p.flags.maxErrors), maxErrorRate: p.flags.maxErrorRate, keepStarts: p.spanned(),
		startupTimeout: t.Readiness.StartupTimeout}
}

// benchLimits is the probe.Observer that bounds a run in time: the
// duration starts when the target is ready.
type benchLimits struct {
	target   string
	duration time.Duration
	cancel   context.CancelFunc
	clk      clock.Clock

	// maxErrors and maxErrorRate are the early stops; 0 is none.
	maxErrors    int64
	maxErrorRate float64

	// startupTimeout is how long the target may take to become ready
	// (readiness.startup_timeout); the run is cancelled past it.
	startupTimeout time.Duration

	mu      sync.Mutex
	ready   time.Time
	timer   *time.Timer
	expired bool
	// startup is the timer of startupTimeout, timedOut whether it
	// cancelled the run before the target was ready.
	startup  *time.Timer
	timedOut bool
	// errors counts the errored requests; recent holds whether each of
	// the last benchErrorRateSample finished requests errored, a ring at
	// next; finished counts every finished one.
	errors, finished int64
	recent           [benchErrorRateSample]bool
	// stopped is the early stop that ended the run, empty when none did.
	stopped string
	// keepStarts asks for every request's start in starts, for a warmup
	// or cooldown counted in requests.
	keepStarts bool
	starts     []time.Time
}

// benchErrorRateSample is the sliding sample of --max-error-rate: the last
// 50 successful or errored requests, judged once 50 have finished.
const benchErrorRateSample = 50

var _ probe.Observer = (*benchLimits)(nil)

// State implements probe.Observer: the run's clock starts at ready.
func (l *benchLimits) State(target string, state probe.TargetState, _ time.Duration) {
	if target != l.target || state != probe.StateReady {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready.IsZero() || l.timedOut {
		return
	}
	if l.startup != nil {
		l.startup.Stop()
	}
	l.ready = l.clk.Now()
	if l.duration > 0 {
		l.timer = time.AfterFunc(l.duration, func() {
			l.mu.Lock()
			l.expired = true
			l.mu.Unlock()
			l.cancel()
		})
	}
}

// Scheduled implements probe.Observer.
func (*benchLimits) Scheduled(string) {}

// Dropped implements probe.Observer.
func (*benchLimits) Dropped(string, probe.DropReason) {}

// Started implements probe.Observer.
func (*benchLimits) Started(string) {}

// Finished implements probe.Observer: an errored request counts toward
// the early stops, which cancel the run.
func (l *benchLimits) Finished(rec *probe.Record) {
	if rec.Outcome == probe.Incomplete {
		l.mu.Lock()
		l.keepStart(rec)
		l.mu.Unlock()
		return
	}
	errored := rec.Outcome == probe.Errored
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keepStart(rec)
	l.recent[l.finished%benchErrorRateSample] = errored
	l.finished++
	if errored {
		l.errors++
	}
	if l.stopped != "" || l.expired {
		return
	}
	switch {
	case l.maxErrors > 0 && l.errors >= l.maxErrors:
		l.stopped = benchStopErrors
	case l.maxErrorRate > 0 && l.finished >= benchErrorRateSample && l.recentRate() > l.maxErrorRate:
		l.stopped = benchStopErrorRate
	default:
		return
	}
	l.cancel()
}

// keepStart records the start of rec when asked to; l.mu is held.
func (l *benchLimits) keepStart(rec *probe.Record) {
	if l.keepStarts && !rec.RequestStart.IsZero() {
		l.starts = append(l.starts, rec.RequestStart)
	}
}

// recentRate is the errored share of the last benchErrorRateSample
// finished requests; l.mu is held.
func (l *benchLimits) recentRate() float64 {
	n := 0
	for _, e := range l.recent {
		if e {
			n++
		}
	}
	return float64(n) / benchErrorRateSample
}

// waitReady starts the wait for the target's start-up gate: past
// startupTimeout without ready, the run is cancelled.
func (l *benchLimits) waitReady() {
	if l.startupTimeout <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.startup = time.AfterFunc(l.startupTimeout, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.ready.IsZero() {
			l.timedOut = true
			l.cancel()
		}
	})
}

// notReady is the error of a run that ended before the target was ready:
// interrupted (parent cancelled), past the startup timeout, or the
// prober's error runErr. No request was sent.
func (l *benchLimits) notReady(parent context.Context, t *config.Target, runErr error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case parent.Err() != nil:
		return fmt.Errorf("%w before target %s became ready: no request sent", errBenchWaitInterrupted, t.Name)
	case l.timedOut:
		return fmt.Errorf("target %s did not pass its readiness check (%s every %s) within its startup_timeout %s: no request sent",
			t.Name, t.Readiness.Path, t.Readiness.Interval, l.startupTimeout)
	}
	return fmt.Errorf("target %s never became ready: %w", t.Name, runErr)
}

// errBenchWaitInterrupted ends a benchmark interrupted by a signal while
// waiting for its target to become ready (exit status 1); a sweep or a
// goodput search keeps the benchmarks that ran before it.
var errBenchWaitInterrupted = errors.New("benchmark interrupted")

// readyAt returns when the target became ready; zero when it never did.
func (l *benchLimits) readyAt() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ready
}

// stop stops the duration timer.
func (l *benchLimits) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.startup != nil {
		l.startup.Stop()
	}
}

// reason says why the run ended: the caller's interrupt, the duration, or
// the strategy stopping (at the request limit when limited).
func (l *benchLimits) reason(parent context.Context, runErr error, limited bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case parent.Err() != nil:
		return benchStopInterrupted
	case l.stopped != "":
		return l.stopped
	case l.expired:
		return benchStopDuration
	case runErr == nil && limited:
		return benchStopRequests
	}
	return benchStopStrategy
}
