package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/slo"
)

// metricsOptions are the exporter options of cfg: SLO thresholds as
// bucket boundaries, the window gauges it selects, and the cardinality
// limit its series budget asks for.
func metricsOptions(cfg *config.Config, getenv func(string) string, logger *slog.Logger) (exporter.Options, exporter.Budget, error) {
	infos := exporterTargets(cfg)
	var objectives []slo.Objective
	for _, t := range infos {
		objectives = append(objectives, t.Objectives...)
	}
	gauges := windowGauges(&cfg.WindowGauges)
	opts := exporter.Options{Version: buildVersion(), Revision: revision, Getenv: getenv, Logger: logger,
		ExtraBoundaries: exporter.SLOBoundaries(objectives), WindowGauges: &gauges}
	budget, err := exporter.SeriesBudget(infos, len(cfg.Windows), opts)
	if err != nil {
		return opts, budget, err
	}
	opts.CardinalityLimit = budget.CardinalityLimit()
	return opts, budget, nil
}

// exporterTargets describes every configured target to the exporter.
func exporterTargets(cfg *config.Config) []exporter.Target {
	out := make([]exporter.Target, len(cfg.Targets))
	for i := range cfg.Targets {
		out[i] = exporterTarget(&cfg.Targets[i])
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

// checkBudget returns an error when budget exceeds cfg.SeriesLimit, with
// the numbers and what to change.
func checkBudget(cfg *config.Config, budget exporter.Budget) error {
	if budget.Total <= cfg.SeriesLimit {
		return nil
	}
	return &config.FieldError{Path: "series_limit", Msg: fmt.Sprintf(
		"the configuration exports up to %d series (%d targets, %s; largest instrument %s with %d attribute sets), "+
			"above series_limit %d: raise series_limit, export fewer window gauges (window_gauges), windows or objective sets, "+
			"or split the targets over replicas (--shards)",
		budget.Total, len(budget.Targets), perTargetRange(budget), budget.Largest().Name, budget.Largest().Sets, cfg.SeriesLimit)}
}

// perTargetRange describes the series per target: "474 per target" or
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

// printBudget tells check's user what the configuration will cost.
func printBudget(w io.Writer, cfg *config.Config, b exporter.Budget) {
	l := b.Largest()
	fmt.Fprintf(w, "series: up to %d (%s, %d shared; series_limit %d), plus the Go and process collectors\n",
		b.Total, perTargetRange(b), b.Shared, cfg.SeriesLimit)
	fmt.Fprintf(w, "largest instrument: %s with %d attribute sets (OpenTelemetry cardinality limit %d)\n",
		l.Name, l.Sets, b.CardinalityLimit())
}
