package wiring

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/slo"
)

// MetricsOptions are the exporter options of cfg: SLO thresholds as
// bucket boundaries, the window gauges it selects, and the cardinality
// limit its series budget asks for.
func MetricsOptions(cfg *config.Config, getenv func(string) string, logger *slog.Logger) (exporter.Options, exporter.Budget, error) {
	infos := ExporterTargets(cfg)
	var objectives []slo.Objective
	for _, t := range infos {
		objectives = append(objectives, t.Objectives...)
	}
	gauges := windowGauges(&cfg.WindowGauges)
	opts := exporter.Options{Version: buildinfo.Version(), Revision: buildinfo.LinkRevision(), Getenv: getenv, Logger: logger,
		ExtraBoundaries: exporter.SLOBoundaries(objectives), WindowGauges: &gauges}
	budget, err := exporter.SeriesBudget(infos, len(cfg.Windows), opts)
	if err != nil {
		return opts, budget, err
	}
	opts.CardinalityLimit = budget.CardinalityLimit()
	return opts, budget, nil
}

// ExporterTargets describes every configured target to the exporter.
func ExporterTargets(cfg *config.Config) []exporter.Target {
	out := make([]exporter.Target, len(cfg.Targets))
	for i := range cfg.Targets {
		out[i] = ExporterTarget(&cfg.Targets[i])
	}
	return out
}

// windowGauges converts the configuration's selection.
func windowGauges(g *config.WindowGauges) exporter.WindowGauges {
	return exporter.WindowGauges{
		Percentiles: g.Exports(config.GaugesPercentiles), Means: g.Exports(config.GaugesMeans),
		Tokens: g.Exports(config.GaugesTokens), Rates: g.Exports(config.GaugesRates),
		SLO: g.Exports(config.GaugesSLO), Intervals: g.Exports(config.GaugesIntervals), Levels: g.Levels(),
	}
}

// CheckBudget returns an error when budget exceeds cfg.SeriesLimit, with
// the numbers and what to change.
func CheckBudget(cfg *config.Config, budget exporter.Budget) error {
	if budget.Total <= cfg.SeriesLimit {
		return nil
	}
	return &config.FieldError{Path: "series_limit", Msg: fmt.Sprintf(
		"the configuration exports up to %d series (%d targets, %s; largest instrument %s with %d attribute sets%s), "+
			"above series_limit %d: raise series_limit, export fewer window gauges (window_gauges), windows or objective sets, "+
			"%sor split the targets over replicas (--shards)",
		budget.Total, len(budget.Targets), perTargetRange(budget), budget.Largest().Name, budget.Largest().Sets,
		thresholdCost(budget), cfg.SeriesLimit, thresholdAdvice(budget))}
}

// thresholdCost describes the series that objective thresholds cost as
// bucket boundaries beyond the defaults; "" when they cost none.
func thresholdCost(b exporter.Budget) string {
	if b.ThresholdSeries == 0 {
		return ""
	}
	return fmt.Sprintf("; %d of them are the %s that objective thresholds add beyond the default ones, "+
		"each one series more per attribute set of its histogram, for every target", b.ThresholdSeries, boundaries(b.ThresholdBoundaries))
}

// boundaries is "1 bucket boundary" or "n bucket boundaries".
func boundaries(n int) string {
	if n == 1 {
		return "1 bucket boundary"
	}
	return strconv.Itoa(n) + " bucket boundaries"
}

// thresholdAdvice is the remedy for thresholds that cost series, when a
// tenth of the total or more: bucket boundaries are per instrument, so
// targets that share thresholds (or use default boundaries) share their
// cost; "" otherwise.
func thresholdAdvice(b exporter.Budget) string {
	if b.ThresholdSeries*10 < b.Total {
		return ""
	}
	return "share objective thresholds between targets or use default bucket boundaries (every distinct threshold is a bucket boundary for every target), "
}

// perTargetRange describes the series per target: "475 per target" or
// "from 420 to 509 per target".
func perTargetRange(b exporter.Budget) string {
	if len(b.Targets) == 0 {
		return "no target"
	}
	lo, hi := b.Targets[0], b.Targets[0]
	for _, n := range b.Targets {
		lo, hi = min(lo, n), max(hi, n)
	}
	if lo == hi {
		return fmt.Sprintf("%d per target", lo)
	}
	return fmt.Sprintf("from %d to %d per target", lo, hi)
}

// PrintBudget tells check's user what the configuration will cost.
func PrintBudget(w io.Writer, cfg *config.Config, b exporter.Budget) {
	l := b.Largest()
	fmt.Fprintf(w, "series: up to %d (%s, %d shared; series_limit %d), plus the Go and process collectors\n",
		b.Total, perTargetRange(b), b.Shared, cfg.SeriesLimit)
	fmt.Fprintf(w, "largest instrument: %s with %d attribute sets (OpenTelemetry cardinality limit %d)\n",
		l.Name, l.Sets, b.CardinalityLimit())
	if b.ThresholdSeries > 0 {
		fmt.Fprintf(w, "objective thresholds: %s beyond the default ones, %d series (each is a boundary of its histogram for every target)\n",
			boundaries(b.ThresholdBoundaries), b.ThresholdSeries)
	}
}

// DashboardGaps returns one warning per window gauge that the bundled
// dashboards read (config.DefaultWindowGauges) and cfg's window_gauges do
// not export: the panels that read it stay empty. The slo family counts
// only when a target has objective sets.
func DashboardGaps(cfg *config.Config) []string {
	families, levels := cfg.WindowGauges.Missing(config.DefaultWindowGauges())
	var out []string
	for _, f := range families {
		if f == config.GaugesSLO && !hasObjectives(cfg) {
			continue
		}
		out = append(out, fmt.Sprintf("window_gauges.export leaves out %s, which the bundled overview dashboard reads: its %s stay empty",
			f, dashboardPanels[f]))
	}
	for _, l := range levels {
		out = append(out, fmt.Sprintf("window_gauges.percentiles leaves out %s, which the bundled overview dashboard reads: its exact %s panels stay empty", l, l))
	}
	return out
}

// dashboardPanels names the overview dashboard's panels that read each
// family of window gauges.
var dashboardPanels = map[string]string{
	config.GaugesPercentiles: "exact window percentile panels (llmprober_window_percentile_seconds)",
	config.GaugesSLO:         "window attainment and goodput panels (llmprober_window_slo_attainment, llmprober_window_goodput_*)",
}

// hasObjectives reports whether a target of cfg has an objective set.
func hasObjectives(cfg *config.Config) bool {
	for i := range cfg.Targets {
		if len(cfg.Targets[i].Objectives) > 0 {
			return true
		}
	}
	return false
}
