package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmprober/llmprober/slo/stats"
)

// Families of window gauges, the values of WindowGauges.Export.
const (
	// GaugesPercentiles exports llmprober_window_percentile_seconds at the
	// levels of WindowGauges.Percentiles.
	GaugesPercentiles = "percentiles"
	// GaugesMeans exports llmprober_window_mean_seconds.
	GaugesMeans = "means"
	// GaugesTokens exports the token count percentiles (at the same levels)
	// and means.
	GaugesTokens = "tokens"
	// GaugesRates exports the counts and rates by status and the concurrency.
	GaugesRates = "rates"
	// GaugesSLO exports the evaluated requests, attainment and goodput of
	// every objective set.
	GaugesSLO = "slo"
	// GaugesIntervals exports the confidence-interval bounds of the
	// percentiles, means and attainment exported.
	GaugesIntervals = "intervals"
)

// GaugeFamilies lists every value of WindowGauges.Export, in order.
var GaugeFamilies = []string{GaugesPercentiles, GaugesMeans, GaugesTokens, GaugesRates, GaugesSLO, GaugesIntervals}

// Defaults and bounds of the series settings.
const (
	// DefaultSeriesLimit is Config.SeriesLimit's default: 200 HTTP targets
	// with the default windows and two objective sets each export about
	// 100 000 series.
	DefaultSeriesLimit = 250000
	// MinSeriesLimit is the least Config.SeriesLimit.
	MinSeriesLimit = 1000
	// LimitSeriesLimit bounds Config.SeriesLimit.
	LimitSeriesLimit = 100000000
)

// WindowGauges selects the window figures exported as gauges (to
// Prometheus and OTLP); the JSON API and the landing page have all of them.
// llmprober_window_length_seconds and llmprober_window_approximate are
// always exported.
type WindowGauges struct {
	// Export lists the families exported, each at most once, from
	// GaugeFamilies. Default [percentiles, slo]: what the bundled
	// dashboards read. An empty list exports no family.
	Export []string `yaml:"export"`
	// Percentiles are the percentile levels exported by the percentiles
	// and tokens families ("p0.1" … "p99.9"). Default [p99].
	Percentiles []string `yaml:"percentiles"`
}

// DefaultWindowGauges returns Config.WindowGauges's default: exactly the
// window gauges the bundled dashboards read.
func DefaultWindowGauges() WindowGauges {
	return WindowGauges{Export: []string{GaugesPercentiles, GaugesSLO}, Percentiles: []string{"p99"}}
}

// Exports reports whether family is exported.
func (g *WindowGauges) Exports(family string) bool { return slices.Contains(g.Export, family) }

// Levels returns the exported percentile levels, in configured order;
// unknown keys are left out (Validate reports them).
func (g *WindowGauges) Levels() []stats.Level {
	var out []stats.Level
	for _, k := range g.Percentiles {
		if l, ok := levelByKey(k); ok {
			out = append(out, l)
		}
	}
	return out
}

// Missing returns the families and percentile levels of want that g does
// not export, each in want's order; levels are compared only where both
// export a family that has levels (percentiles or tokens).
func (g *WindowGauges) Missing(want WindowGauges) (families, levels []string) {
	for _, f := range want.Export {
		if !g.Exports(f) {
			families = append(families, f)
		}
	}
	if !g.Exports(GaugesPercentiles) && !g.Exports(GaugesTokens) {
		return families, nil
	}
	for _, l := range want.Percentiles {
		if !slices.Contains(g.Percentiles, l) {
			levels = append(levels, l)
		}
	}
	return families, levels
}

// levelByKey returns the reported percentile level whose key is k.
func levelByKey(k string) (stats.Level, bool) {
	for _, l := range stats.Levels() {
		if l.Key() == k {
			return l, true
		}
	}
	return stats.Level{}, false
}

// applySeriesDefaults fills the unset series settings: a list written
// explicitly, even empty, is kept.
func (c *Config) applySeriesDefaults() {
	def := DefaultWindowGauges()
	if c.WindowGauges.Export == nil && !c.src.isSet("window_gauges.export") {
		c.WindowGauges.Export = def.Export
	}
	if c.WindowGauges.Percentiles == nil && !c.src.isSet("window_gauges.percentiles") {
		c.WindowGauges.Percentiles = def.Percentiles
	}
	if c.SeriesLimit == 0 && !c.src.isSet("series_limit") {
		c.SeriesLimit = DefaultSeriesLimit
	}
}

// seriesNullRejected reports whether a null at path is one of the series
// settings, which must be left out rather than written as null to take
// their default (an empty list, [], exports no family or level).
func seriesNullRejected(path string) (msg string, rejected bool) {
	switch path {
	case "window_gauges":
		return "must be a mapping with export and percentiles, not null (leave it out for the defaults)", true
	case "window_gauges.export":
		return "must be a list of families such as [percentiles, slo], or [] for none, not null (leave it out for [percentiles, slo])", true
	case "window_gauges.percentiles":
		return "must be a list of levels such as [p99], or [] for none, not null (leave it out for [p99])", true
	case "series_limit":
		return fmt.Sprintf("must be a number of series such as %d, not null (leave it out for %d)", DefaultSeriesLimit, DefaultSeriesLimit), true
	}
	return "", false
}

// validateSeries records the problems of the series settings.
func (c *Config) validateSeries(col *collector) {
	checkList(col, "window_gauges.export", c.WindowGauges.Export, func(v string) bool {
		return slices.Contains(GaugeFamilies, v)
	}, strings.Join(GaugeFamilies, ", "))
	keys := make([]string, 0, len(stats.Levels()))
	for _, l := range stats.Levels() {
		keys = append(keys, l.Key())
	}
	checkList(col, "window_gauges.percentiles", c.WindowGauges.Percentiles, func(v string) bool {
		_, ok := levelByKey(v)
		return ok
	}, strings.Join(keys, ", "))
	if c.SeriesLimit < MinSeriesLimit || c.SeriesLimit > LimitSeriesLimit {
		col.add("series_limit", "must be between %d and %d series", MinSeriesLimit, LimitSeriesLimit)
	}
}

// checkList records every item of list that is unknown or repeated.
func checkList(col *collector, path string, list []string, known func(string) bool, allowed string) {
	seen := map[string]int{}
	for i, v := range list {
		item := path + "[" + strconv.Itoa(i) + "]"
		first, dup := seen[v]
		switch {
		case !known(v):
			col.add(item, "unknown value %q (supported: %s)", v, allowed)
		case dup:
			col.add(item, "duplicate value %q (also %s[%d])", v, path, first)
		default:
			seen[v] = i
		}
	}
}

// ArrivalSchedule reports whether the schedule's strategy gives each
// request a targeted start (constant, poisson, trace), so that its
// dispatch delay, turn delays and scheduled latency exist.
func (s *Schedule) ArrivalSchedule() bool { return !closedLoop(s.Strategy) }

// MayConverse reports whether the target's requests can be later turns of
// conversations: a workload conversation of two turns or more, or a trace
// (whose rows may carry conversation ids).
func (t *Target) MayConverse() bool {
	c := t.Workload.Conversation
	return (c != nil && c.Turns > 1) || t.Schedule.Strategy == StrategyTrace
}
