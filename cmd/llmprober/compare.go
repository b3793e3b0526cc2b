package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe/localfile"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// errRegression ends compare --fail-on-regression when a latency, the
// error rate or an attainment got significantly worse (exit 1).
var errRegression = errors.New("significant regression")

// errCannotCompare ends compare --fail-on-regression when a figure of
// BASE cannot be judged: absent or null in NEW, with an interval in BASE
// and none in NEW, or either report without a measurement window or a
// successful request (exit 3). A gate fails
// closed: what it cannot compare never passes.
var errCannotCompare = errors.New("cannot compare")

// compareExitCannot is the exit status of errCannotCompare.
const compareExitCannot = 3

// Bounds of a bench run's benchmarks: --sweep-rates and --goodput-steps
// at most.
const (
	maxSweepRates   = 50
	maxGoodputSteps = 30
)

// maxReportBenchmarks is the most benchmarks a report of bench holds: a
// sweep's synchronous and throughput benchmarks and its rates.
const maxReportBenchmarks = 2 + maxSweepRates

// compareDoc is the part of a bench JSON report that compare reads.
type compareDoc struct {
	Schema     string            `json:"schema"`
	Benchmarks compareBenchmarks `json:"benchmarks"`
}

// compareBenchmarks are a report's benchmarks, at most
// maxReportBenchmarks: a report with more is not one bench wrote, and is
// refused before it is kept.
type compareBenchmarks []compareBenchmark

// UnmarshalJSONFrom decodes the benchmarks, refusing more than
// maxReportBenchmarks.
func (b *compareBenchmarks) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeBounded(dec, (*[]compareBenchmark)(b), maxReportBenchmarks, "benchmarks, the most a sweep runs")
}

// compareBenchmark is the part of one benchmark that compare reads.
type compareBenchmark struct {
	Config struct {
		Target string `json:"target"`
	} `json:"config"`
	Window *compareWindow `json:"window"`
	SLO    compareSLOs    `json:"slo"`
}

// compareWindow is the part of a measurement window that compare reads:
// whether it measured, its requests by outcome, its summaries of the
// successful requests, and the level of its intervals (nil: none).
type compareWindow struct {
	Measuring  bool             `json:"measuring"`
	Confidence *float64         `json:"confidence"`
	Requests   compareRequests  `json:"requests"`
	Summaries  compareSummaries `json:"summaries"`
}

// compareRequests are a window's requests by outcome: successful, errored
// and incomplete, the other members skipped.
type compareRequests map[string]int64

// UnmarshalJSONFrom keeps the outcomes compare reads.
func (r *compareRequests) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeKnown(dec, (*map[string]int64)(r), func(k []byte) bool {
		return string(k) == "successful" || string(k) == "errored" || string(k) == "incomplete"
	})
}

// compareSummaries are a window's summaries by metric: those of
// compareLatencies, the other members skipped.
type compareSummaries map[string]struct {
	Successful *compareSummary `json:"successful"`
}

// UnmarshalJSONFrom keeps the summaries of compareLatencies.
func (m *compareSummaries) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeKnown(dec, (*map[string]struct {
		Successful *compareSummary `json:"successful"`
	})(m), func(k []byte) bool {
		for _, l := range compareLatencies {
			if l.String() == string(k) {
				return true
			}
		}
		return false
	})
}

// comparePercentiles are a summary's percentiles by level: those of
// compareLevels, the other members skipped.
type comparePercentiles map[string]struct {
	Value *float64       `json:"value"`
	CI    *benchInterval `json:"ci"`
}

// UnmarshalJSONFrom keeps the percentiles of compareLevels.
func (m *comparePercentiles) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeKnown(dec, (*map[string]struct {
		Value *float64       `json:"value"`
		CI    *benchInterval `json:"ci"`
	})(m), func(k []byte) bool {
		for _, l := range compareLevels {
			if l == string(k) {
				return true
			}
		}
		return false
	})
}

// compareSLOs are a benchmark's objective sets, at most
// config.LimitObjectives of them, as a target has: a report with more is
// not one bench wrote, and is refused before it is kept (pairing the sets
// of both reports takes time that grows with the square of their number).
type compareSLOs []compareSLO

// UnmarshalJSONFrom decodes the sets, refusing more than
// config.LimitObjectives.
func (s *compareSLOs) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return decodeBounded(dec, (*[]compareSLO)(s), config.LimitObjectives, "objective sets, the most a target has")
}

// decodeBounded decodes a JSON array (or null) into *s, refusing one of
// more than limit items, named what, before it keeps the item past it.
func decodeBounded[T any](dec *jsontext.Decoder, s *[]T, limit int, what string) error {
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		return err
	case tok.Kind() == 'n':
		*s = nil
		return nil
	case tok.Kind() != '[':
		return fmt.Errorf("want an array, got %v", tok.Kind())
	}
	*s = []T{}
	for dec.PeekKind() != ']' {
		if len(*s) == limit {
			return fmt.Errorf("more than %d %s", limit, what)
		}
		var v T
		if err := json.UnmarshalDecode(dec, &v); err != nil {
			return err
		}
		*s = append(*s, v)
	}
	_, err = dec.ReadToken()
	return err
}

// decodeKnown decodes a JSON object (or null) into *m, keeping the members
// whose names known accepts and skipping the others unread, so that what
// is kept does not grow with the members a report holds.
func decodeKnown[V any](dec *jsontext.Decoder, m *map[string]V, known func([]byte) bool) error {
	tok, err := dec.ReadToken()
	switch {
	case err != nil:
		return err
	case tok.Kind() == 'n':
		*m = nil
		return nil
	case tok.Kind() != '{':
		return fmt.Errorf("want an object, got %v", tok.Kind())
	}
	*m = map[string]V{}
	for dec.PeekKind() != '}' {
		// The name as written, quotes and all: compared, not unquoted, so
		// that a skipped member allocates nothing (a known name written
		// with escapes is not recognized, and so cannot be compared).
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		raw = raw[1 : len(raw)-1]
		if !known(raw) {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			continue
		}
		name := string(raw) // before the next call voids raw
		var v V
		if err := json.UnmarshalDecode(dec, &v); err != nil {
			return err
		}
		(*m)[name] = v
	}
	_, err = dec.ReadToken()
	return err
}

// compareSLO is one objective set's attainment and its interval.
type compareSLO struct {
	Objective  string         `json:"objective"`
	Attainment *float64       `json:"attainment"`
	CI         *benchInterval `json:"attainment_ci"`
}

// compareSummary is one summary of a report.
type compareSummary struct {
	Mean        *float64           `json:"mean"`
	MeanCI      *benchInterval     `json:"mean_ci"`
	Percentiles comparePercentiles `json:"percentiles"`
}

// compareFigure is one figure of both reports with its intervals.
type compareFigure struct {
	name             string
	base, new        *float64
	baseCI, newCI    *benchInterval
	higherIsBetter   bool
	regressionCounts bool
}

// Calls of a comparison.
const (
	callHigher = "higher"
	callLower  = "lower"
	callNone   = "no significant difference"
	callNoCI   = "no interval"
)

// call says whether the new value differs beyond both intervals: higher
// when the new interval lies wholly above the base one, lower when wholly
// below, and otherwise no significant difference (the intervals overlap),
// or no interval when either side lacks one. Overlapping intervals can
// hide a real difference, never invent one: a conservative call.
func (f compareFigure) call() string {
	switch {
	case f.base == nil || f.new == nil || f.baseCI == nil || f.newCI == nil:
		return callNoCI
	case f.newCI.Lower > f.baseCI.Upper:
		return callHigher
	case f.newCI.Upper < f.baseCI.Lower:
		return callLower
	}
	return callNone
}

// regressed reports a significant change for the worse of a figure that
// --fail-on-regression watches.
func (f compareFigure) regressed() bool {
	c := f.call()
	return f.regressionCounts && ((c == callHigher && !f.higherIsBetter) || (c == callLower && f.higherIsBetter))
}

// Calls of a figure on one side only.
const (
	callAbsentNew  = "cannot compare: present in BASE, absent in NEW"
	callNoCINew    = "cannot compare: interval in BASE, none in NEW"
	callAbsentBase = "absent in BASE: not compared"
)

// absent is the call of a figure that one side lacks, empty when both
// have it: absent in NEW cannot be compared (the gate fails closed), and
// neither can a figure whose interval BASE has and NEW lacks (a NEW run
// with --confidence null, or too few requests to bound it), since without
// it no difference, however large, could be called; absent in BASE is
// reported, not judged.
func (f compareFigure) absent() string {
	switch {
	case f.base != nil && f.new == nil:
		return callAbsentNew
	case f.base != nil && f.baseCI != nil && f.newCI == nil:
		return callNoCINew
	case f.base == nil && f.new != nil:
		return callAbsentBase
	}
	return ""
}

// compareLatencies are the durations compared: each one's mean and
// percentiles with intervals (ITL and TPOT are token-weighted and have
// none).
var compareLatencies = []window.Metric{window.RequestLatency, window.TTFT, window.TTFOT, window.TimeToLastRoundTrip,
	window.AverageRTT, window.DispatchDelay, window.ScheduledLatency}

// compareLevels are the percentiles compared.
var compareLevels = []string{"p50", "p90", "p95", "p99"}

// compareCmd is "llmprober compare BASE.json NEW.json".
func compareCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when a latency or the error rate got significantly higher or an attainment "+
		"significantly lower, 3 when a figure of BASE cannot be compared (absent in NEW, no window, no successful request)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: llmprober compare [--fail-on-regression] BASE.json NEW.json")
		return errUsage
	}
	base, err := readCompareDoc("BASE", fs.Arg(0))
	if err != nil {
		return badInput(err)
	}
	next, err := readCompareDoc("NEW", fs.Arg(1))
	if err != nil {
		return badInput(err)
	}
	if len(base.Benchmarks) != len(next.Benchmarks) {
		return badInput(fmt.Errorf("could not compare: BASE %s has %d benchmarks, NEW %s %d", fs.Arg(0), len(base.Benchmarks),
			fs.Arg(1), len(next.Benchmarks)))
	}
	var sum compareSum
	for i := range base.Benchmarks {
		sum.add(writeBenchmarkCompare(stdout, i, &base.Benchmarks[i], &next.Benchmarks[i]))
	}
	if !*failOn {
		return nil
	}
	return sum.err()
}

// compareSum counts what a comparison found: figures significantly
// worse, and figures or benchmarks that cannot be compared.
type compareSum struct {
	regressions, cannot int
}

// add adds the counts of one benchmark.
func (s *compareSum) add(o compareSum) {
	s.regressions += o.regressions
	s.cannot += o.cannot
}

// err is the outcome of --fail-on-regression: a regression (exit 1) wins
// over what cannot be compared (exit 3).
func (s compareSum) err() error {
	switch {
	case s.regressions > 0 && s.cannot > 0:
		return fmt.Errorf("%w: %d figure(s) got significantly worse, and %d figure(s) or window(s) could not be compared",
			errRegression, s.regressions, s.cannot)
	case s.regressions > 0:
		return fmt.Errorf("%w: %d figure(s) got significantly worse", errRegression, s.regressions)
	case s.cannot > 0:
		return fmt.Errorf("%w: %d figure(s) or window(s) could not be compared (the lines marked cannot compare)", errCannotCompare, s.cannot)
	}
	return nil
}

// writeBenchmarkCompare prints benchmark i of both reports: the reasons
// it cannot be compared, if any, then its table.
func writeBenchmarkCompare(w io.Writer, i int, b, n *compareBenchmark) compareSum {
	fmt.Fprintf(w, "benchmark %d: %s → %s\n", i+1, b.Config.Target, n.Config.Target)
	reasons := append(windowProblems("BASE", b.Window), windowProblems("NEW", n.Window)...)
	for _, r := range reasons {
		fmt.Fprintf(w, "  cannot compare: %s\n", r)
	}
	sum := writeCompare(w, compareFigures(b, n))
	sum.cannot += len(reasons)
	return sum
}

// windowProblems says why a report's window (of side BASE or NEW) has no
// figure to compare: none, not measuring, or no successful request.
func windowProblems(side string, w *compareWindow) []string {
	switch {
	case w == nil:
		return []string{side + ": no measurement window"}
	case !w.Measuring:
		return []string{side + ": no measurement window (the run ended before its warmup did)"}
	case w.Requests["successful"] == 0:
		return []string{fmt.Sprintf("%s: 0 successful requests (%d errored, %d incomplete)", side, w.Requests["errored"],
			w.Requests["incomplete"])}
	}
	return nil
}

// readCompareDoc reads the bench JSON report at path, the side (BASE or
// NEW) of a comparison: a regular file of at most localfile.BenchReport's
// size, decoded as it is read, so that the records it holds (most of a
// large report) are skipped, never held.
func readCompareDoc(side, path string) (*compareDoc, error) {
	f, err := localfile.Open(path, localfile.BenchReport)
	if err != nil {
		return nil, fmt.Errorf("could not read %s report %s: %w", side, path, err)
	}
	defer func() { _ = f.Close() }()
	var doc compareDoc
	// Duplicate names are not tracked: the set of an object's names would
	// grow with the members skipped unread.
	if err := json.UnmarshalRead(bufio.NewReaderSize(f, 64<<10), &doc, jsontext.AllowDuplicateNames(true)); err != nil {
		return nil, fmt.Errorf("could not read %s report %s: not a bench report: %w", side, path, err)
	}
	if doc.Schema != benchSchema {
		return nil, fmt.Errorf("could not read %s report %s: schema %q, want %s", side, path, doc.Schema, benchSchema)
	}
	if len(doc.Benchmarks) == 0 {
		return nil, fmt.Errorf("could not read %s report %s: no benchmarks", side, path)
	}
	return &doc, nil
}

// compareFigures lists a benchmark's figures of both reports: each
// latency's mean and percentiles, the error rate, then each objective
// set's attainment (BASE's sets, then those only NEW has). A figure
// neither report has is left out.
func compareFigures(b, n *compareBenchmark) []compareFigure {
	var out []compareFigure
	keep := func(f compareFigure) {
		if f.base != nil || f.new != nil {
			out = append(out, f)
		}
	}
	for _, m := range compareLatencies {
		bs, ns := b.Window.successful(m), n.Window.successful(m)
		keep(compareFigure{name: m.String() + " mean", base: bs.mean(), new: ns.mean(), baseCI: bs.meanCI(), newCI: ns.meanCI(),
			regressionCounts: true})
		for _, l := range compareLevels {
			bv, bci := bs.percentile(l)
			nv, nci := ns.percentile(l)
			keep(compareFigure{name: m.String() + " " + l, base: bv, new: nv, baseCI: bci, newCI: nci, regressionCounts: true})
		}
	}
	bv, bci := b.Window.errorRate()
	nv, nci := n.Window.errorRate()
	keep(compareFigure{name: "error rate", base: bv, new: nv, baseCI: bci, newCI: nci, regressionCounts: true})
	for _, f := range compareObjectives(b.SLO, n.SLO) {
		keep(f)
	}
	return out
}

// compareObjectives pairs the objective sets of both reports by name:
// BASE's in order, then those only NEW has.
func compareObjectives(base, next []compareSLO) []compareFigure {
	fig := func(name string, b, n *compareSLO) compareFigure {
		return compareFigure{name: "slo " + name + " attainment", base: b.Attainment, new: n.Attainment, baseCI: b.CI, newCI: n.CI,
			higherIsBetter: true, regressionCounts: true}
	}
	find := func(in []compareSLO, name string) *compareSLO {
		for i := range in {
			if in[i].Objective == name {
				return &in[i]
			}
		}
		return &compareSLO{}
	}
	var out []compareFigure
	for i := range base {
		out = append(out, fig(base[i].Objective, &base[i], find(next, base[i].Objective)))
	}
	for i := range next {
		if find(base, next[i].Objective).Objective == "" {
			out = append(out, fig(next[i].Objective, &compareSLO{}, &next[i]))
		}
	}
	return out
}

// successful is metric m's summary of the successful requests, nil when
// the window or the summary is absent.
func (w *compareWindow) successful(m window.Metric) *compareSummary {
	if w == nil {
		return nil
	}
	return w.Summaries[m.String()].Successful
}

// errorRate is the share of the finished requests (successful or
// errored; incomplete ones are the prober's, not the target's) that
// errored, with its Wilson interval at the window's confidence; nil when
// none finished.
func (w *compareWindow) errorRate() (*float64, *benchInterval) {
	if w == nil {
		return nil, nil
	}
	errored, n := w.Requests["errored"], w.Requests["successful"]+w.Requests["errored"]
	if n <= 0 {
		return nil, nil
	}
	rate := float64(errored) / float64(n)
	if w.Confidence == nil {
		return &rate, nil
	}
	lo, hi, ok := stats.Wilson(errored, n, *w.Confidence)
	if !ok {
		return &rate, nil
	}
	return &rate, &benchInterval{Lower: lo, Upper: hi}
}

// mean is the summary's mean, nil when absent.
func (s *compareSummary) mean() *float64 {
	if s == nil {
		return nil
	}
	return s.Mean
}

// meanCI is the interval of the summary's mean, nil when absent.
func (s *compareSummary) meanCI() *benchInterval {
	if s == nil {
		return nil
	}
	return s.MeanCI
}

// percentile is the summary's percentile at level l and its interval,
// nil when absent.
func (s *compareSummary) percentile(l string) (*float64, *benchInterval) {
	if s == nil {
		return nil, nil
	}
	p := s.Percentiles[l]
	return p.Value, p.CI
}

// writeCompare prints one line per figure and counts the regressions and
// the figures of BASE absent in NEW.
func writeCompare(w io.Writer, figs []compareFigure) compareSum {
	var sum compareSum
	fmt.Fprintf(w, "  %-32s %-30s %-30s %s\n", "figure", "base [interval]", "new [interval]", "call")
	for _, f := range figs {
		call := f.absent()
		switch {
		case call == callAbsentNew || call == callNoCINew:
			sum.cannot++
		case call != "":
		case f.regressed():
			call = f.call() + ": regression"
			sum.regressions++
		default:
			call = f.call()
		}
		fmt.Fprintf(w, "  %-32s %-30s %-30s %s\n", f.name, compareValue(f.base, f.baseCI), compareValue(f.new, f.newCI), call)
	}
	return sum
}

// compareValue is "0.1503 [0.1496, 0.1511]" (4 significant digits), the interval left out when
// absent, "—" without a value.
func compareValue(v *float64, ci *benchInterval) string {
	if v == nil {
		return "—"
	}
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	if ci == nil {
		return g(*v)
	}
	return g(*v) + " [" + g(ci.Lower) + ", " + g(ci.Upper) + "]"
}
