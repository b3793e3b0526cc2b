package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/llmprober/llmprober/slo/window"
)

// errRegression ends compare --fail-on-regression when a latency got
// significantly worse or an attainment significantly lower (exit 1).
var errRegression = errors.New("significant regression")

// compareDoc is the part of a bench JSON report that compare reads.
type compareDoc struct {
	Schema     string `json:"schema"`
	Benchmarks []struct {
		Config struct {
			Target string `json:"target"`
		} `json:"config"`
		Window struct {
			Summaries map[string]struct {
				Successful *compareSummary `json:"successful"`
			} `json:"summaries"`
		} `json:"window"`
		SLO []struct {
			Objective  string         `json:"objective"`
			Attainment *float64       `json:"attainment"`
			CI         *benchInterval `json:"attainment_ci"`
		} `json:"slo"`
	} `json:"benchmarks"`
}

// compareSummary is one summary of a report.
type compareSummary struct {
	Mean        *float64       `json:"mean"`
	MeanCI      *benchInterval `json:"mean_ci"`
	Percentiles map[string]struct {
		Value *float64       `json:"value"`
		CI    *benchInterval `json:"ci"`
	} `json:"percentiles"`
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
	failOn := fs.Bool("fail-on-regression", false, "exit 1 when a latency got significantly higher or an attainment significantly lower")
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
	base, err := readCompareDoc(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("%w: %w", errInvalid, err)
	}
	next, err := readCompareDoc(fs.Arg(1))
	if err != nil {
		return fmt.Errorf("%w: %w", errInvalid, err)
	}
	if len(base.Benchmarks) != len(next.Benchmarks) {
		return fmt.Errorf("%w: %s has %d benchmarks, %s %d", errInvalid, fs.Arg(0), len(base.Benchmarks), fs.Arg(1), len(next.Benchmarks))
	}
	regressions := 0
	for i := range base.Benchmarks {
		figs := compareFigures(base, next, i)
		fmt.Fprintf(stdout, "benchmark %d: %s → %s\n", i+1, base.Benchmarks[i].Config.Target, next.Benchmarks[i].Config.Target)
		regressions += writeCompare(stdout, figs)
	}
	if *failOn && regressions > 0 {
		return fmt.Errorf("%w: %d figure(s) got significantly worse", errRegression, regressions)
	}
	return nil
}

// readCompareDoc reads a bench JSON report.
func readCompareDoc(path string) (*compareDoc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("could not read report: %w", err)
	}
	var doc compareDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a bench report: %w", path, err)
	}
	if doc.Schema != benchSchema {
		return nil, fmt.Errorf("%s: schema %q, want %s", path, doc.Schema, benchSchema)
	}
	return &doc, nil
}

// compareFigures lists benchmark i's figures of both reports: each
// latency's mean and percentiles, then each objective set's attainment.
func compareFigures(base, next *compareDoc, i int) []compareFigure {
	var out []compareFigure
	b, n := base.Benchmarks[i], next.Benchmarks[i]
	for _, m := range compareLatencies {
		bs, ns := b.Window.Summaries[m.String()].Successful, n.Window.Summaries[m.String()].Successful
		if bs == nil || ns == nil || bs.Mean == nil || ns.Mean == nil {
			continue
		}
		out = append(out, compareFigure{name: m.String() + " mean", base: bs.Mean, new: ns.Mean, baseCI: bs.MeanCI, newCI: ns.MeanCI,
			regressionCounts: true})
		for _, l := range compareLevels {
			bp, np := bs.Percentiles[l], ns.Percentiles[l]
			out = append(out, compareFigure{name: m.String() + " " + l, base: bp.Value, new: np.Value, baseCI: bp.CI, newCI: np.CI,
				regressionCounts: true})
		}
	}
	for _, bo := range b.SLO {
		for _, no := range n.SLO {
			if no.Objective == bo.Objective {
				out = append(out, compareFigure{name: "slo " + bo.Objective + " attainment", base: bo.Attainment, new: no.Attainment,
					baseCI: bo.CI, newCI: no.CI, higherIsBetter: true, regressionCounts: true})
			}
		}
	}
	return out
}

// writeCompare prints one line per figure and returns the regressions.
func writeCompare(w io.Writer, figs []compareFigure) int {
	regressions := 0
	fmt.Fprintf(w, "  %-32s %-30s %-30s %s\n", "figure", "base [interval]", "new [interval]", "call")
	for _, f := range figs {
		call := f.call()
		if f.regressed() {
			call += ": regression"
			regressions++
		}
		fmt.Fprintf(w, "  %-32s %-30s %-30s %s\n", f.name, compareValue(f.base, f.baseCI), compareValue(f.new, f.newCI), call)
	}
	return regressions
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
