package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/llmprober/llmprober/slo"
)

// rulesFlags are the flags of the rules subcommand.
type rulesFlags struct {
	config, format, job string
	defaults            bool
	minRequests         int
	minCoverage         float64
	maxDispatchDelay    time.Duration
	maxReportAge        time.Duration
}

// rulesCmd prints the Prometheus rules for the configured objective sets,
// or for the default objective set with --default.
func rulesCmd(args []string, stdout, stderr io.Writer, environ map[string]string) error {
	var f rulesFlags
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.config, "config", "", "configuration file (YAML); default $LLMPROBER_CONFIG")
	fs.BoolVar(&f.defaults, "default", false, `rules for the objective set "default" (99% over 30d) of every target, without a configuration`)
	fs.StringVar(&f.format, "format", "prometheus", "prometheus (a rule file) or operator (a PrometheusRule)")
	fs.IntVar(&f.minRequests, "min-requests", 10, "evaluated requests needed in an alert's short window; 0 for no minimum")
	fs.DurationVar(&f.maxDispatchDelay, "max-dispatch-delay", time.Second, "dispatch delay p99 that raises LLMProberBehindSchedule: a bucket boundary of llmprober_dispatch_delay_seconds, 100µs to 10s")
	fs.Float64Var(&f.minCoverage, "min-coverage", 0.5, "share of a burn-rate pair's long window that must hold the target's data before the pair can fire, 0 to 1; 0 turns the guard off")
	fs.StringVar(&f.job, "job", "llmprober", `a job label of llmprober's series (the scrape job, or service.name over OTLP) that LLMProberDown also watches before any of its replicas reported; "" for none (the job-agnostic parts stay)`)
	fs.DurationVar(&f.maxReportAge, "max-report-age", slo.DefaultMaxReportAge, "oldest heartbeat (llmprober_collection_timestamp_seconds) of a replica that still reports: above the OTLP export interval plus the collector's scrape interval, whole seconds from 30s to 1h")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.format != "prometheus" && f.format != "operator" {
		fmt.Fprintf(stderr, "--format must be prometheus or operator\n")
		return errUsage
	}
	if f.minRequests < 0 {
		fmt.Fprintf(stderr, "--min-requests must not be negative (0 for no minimum)\n")
		return errUsage
	}
	if !(f.minCoverage >= 0 && f.minCoverage <= 1) {
		fmt.Fprintf(stderr, "--min-coverage must be within [0, 1] (got %v)\n", f.minCoverage)
		return errUsage
	}
	if f.maxReportAge < slo.MinReportAge || f.maxReportAge > slo.MaxMaxReportAge || f.maxReportAge%time.Second != 0 {
		fmt.Fprintf(stderr, "--max-report-age must be whole seconds from %v to %v (got %v)\n", slo.MinReportAge, slo.MaxMaxReportAge, f.maxReportAge)
		return errUsage
	}
	if f.config != "" && f.defaults {
		fmt.Fprintf(stderr, "--config and --default exclude each other\n")
		return errUsage
	}
	if err := slo.CheckDispatchDelay(f.maxDispatchDelay); err != nil {
		fmt.Fprintf(stderr, "--max-dispatch-delay %v\n", err)
		return errUsage
	}
	objectives, err := ruleObjectives(f, environ)
	if err != nil {
		return err
	}
	for _, w := range slo.UnreachableAlerts(objectives) {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	out, err := slo.Rules(objectives, slo.RuleOptions{MinRequests: f.minRequests, MaxDispatchDelay: f.maxDispatchDelay,
		MinCoverage: f.minCoverage, Job: f.job, MaxReportAge: f.maxReportAge})
	if err != nil {
		return err
	}
	if f.format == "operator" {
		out = slo.PrometheusRule(out, "llmprober")
	}
	_, err = stdout.Write(out)
	return err
}

// ruleObjectives returns the objective groups of the configuration, or the
// default one.
func ruleObjectives(f rulesFlags, environ map[string]string) ([]slo.RuleObjective, error) {
	if f.defaults {
		return slo.DefaultRuleObjectives(), nil
	}
	cfg, err := resolve(commonFlags{config: f.config}, environ, nil)
	if err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	byTarget := map[string][]slo.Objective{}
	for i := range cfg.Targets {
		if objs := cfg.Targets[i].SLOObjectives(); len(objs) > 0 {
			byTarget[cfg.Targets[i].Name] = objs
		}
	}
	if len(byTarget) == 0 {
		return nil, fmt.Errorf("%w: no target has objectives; add some or use --default", errNoObjectives)
	}
	return slo.RuleObjectives(byTarget), nil
}

// errNoObjectives means the configuration has no objective set to write rules for.
var errNoObjectives = errors.New("no objective sets")
