package daemon

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
)

// admit checks what a reload cannot change in a running process: the
// global settings fixed at start, the limit on open files (at least
// wiring.FileMinimum), the series budget within the running
// cardinality limit, and objective thresholds among the running histogram
// bucket boundaries (an OpenTelemetry histogram's boundaries are fixed
// when it is created).
func (d *Daemon) admit(cfg *config.Config) error {
	old := d.running.Load()
	var errs []error
	for _, g := range []struct {
		key  string
		a, b any
	}{
		{"listen_address", old.ListenAddress, cfg.ListenAddress}, {"windows", old.Windows, cfg.Windows},
		{"confidence", old.ConfidenceLevel(), cfg.ConfidenceLevel()}, {"warmup", old.Warmup, cfg.Warmup},
		{"window_sample_cap", old.WindowSampleCap, cfg.WindowSampleCap}, {"window_gauges", old.WindowGauges, cfg.WindowGauges},
	} {
		if !reflect.DeepEqual(g.a, g.b) {
			errs = append(errs, &config.FieldError{Path: g.key, Msg: "cannot change without a restart; the running value stays"})
		}
	}
	if limit, least := wiring.OpenFileLimit(), wiring.FileMinimum(cfg.Targets); limit > 0 && limit < least {
		errs = append(errs, &config.FieldError{Path: "targets", Msg: fmt.Sprintf(
			"%d targets need at least %d open files, above the limit of %d; raise it and restart", len(cfg.Targets), least, limit)})
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return d.admitSeries(cfg)
}

// admitSeries checks cfg's series budget and bucket boundaries against
// the running exporter's.
func (d *Daemon) admitSeries(cfg *config.Config) error {
	opts, budget, err := wiring.MetricsOptions(cfg, d.opts.Getenv, d.logger)
	if err != nil {
		return err
	}
	if err := wiring.CheckBudget(cfg, budget); err != nil {
		return err
	}
	if limit := budget.CardinalityLimit(); limit > d.metricsO.CardinalityLimit {
		return &config.FieldError{Path: "targets", Msg: fmt.Sprintf(
			"the new configuration needs a cardinality limit of %d attribute sets per instrument, above the running %d; restart to raise it",
			limit, d.metricsO.CardinalityLimit)}
	}
	var errs []error
	missing := exporter.NewBoundaries(d.metricsO.ExtraBoundaries, opts.ExtraBoundaries)
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		bounds := missing[name]
		errs = append(errs, &config.FieldError{Path: "targets.objectives", Msg: fmt.Sprintf(
			"thresholds %v (seconds) are not bucket boundaries of the running histogram %s, whose boundaries cannot change; "+
				"restart to use them, or use thresholds the running configuration has", bounds, name)})
	}
	return errors.Join(errs...)
}
