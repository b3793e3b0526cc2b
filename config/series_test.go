package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/slo/stats"
)

func TestSeriesSettings(t *testing.T) {
	tests := []struct {
		name         string
		yaml         string
		export, keys []string
		levels       []stats.Level
		limit        int
	}{
		{"defaults", "", []string{"percentiles", "slo"}, []string{"p99"}, []stats.Level{stats.P99}, 250000},
		{"empty lists export nothing", "window_gauges: {export: [], percentiles: []}\n", []string{}, []string{}, nil, 250000},
		{"every setting", "window_gauges: {export: [rates, intervals], percentiles: [p99.9, p50]}\nseries_limit: 1000\n",
			[]string{"rates", "intervals"}, []string{"p99.9", "p50"}, []stats.Level{stats.P999, stats.P50}, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.yaml+oneTarget), "c.yml")
			if err != nil {
				t.Fatal(err)
			}
			g := c.WindowGauges
			if !slices.Equal(g.Export, tt.export) || !slices.Equal(g.Percentiles, tt.keys) ||
				!slices.Equal(g.Levels(), tt.levels) || c.SeriesLimit != tt.limit {
				t.Errorf("got %v %v %v %d, want %v %v %v %d", g.Export, g.Percentiles, g.Levels(), c.SeriesLimit,
					tt.export, tt.keys, tt.levels, tt.limit)
			}
		})
	}
}

func TestSeriesSettingsErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"window_gauges: {export: [histograms]}\n", `c.yml:1: window_gauges.export[0]: unknown value "histograms" (supported: percentiles, means, tokens, rates, slo, intervals)`},
		{"window_gauges: {export: [slo, slo]}\n", `c.yml:1: window_gauges.export[1]: duplicate value "slo" (also window_gauges.export[0])`},
		{"window_gauges: {percentiles: [p98]}\n", `c.yml:1: window_gauges.percentiles[0]: unknown value "p98" (supported: p0.1, p1, p5, p10, p25, p50, p75, p90, p95, p99, p99.9)`},
		{"window_gauges: {percentiles: [p99, p99]}\n", `window_gauges.percentiles[1]: duplicate value "p99"`},
		{"window_gauges: {levels: [p99]}\n", `window_gauges.levels`},
		{"series_limit: 999\n", "c.yml:1: series_limit: must be between 1000 and 100000000 series"},
		{"series_limit: 0\n", "c.yml:1: series_limit: must be between"},
		// A null is an error naming the field and its line, never the
		// default or an empty list in disguise.
		{"window_gauges: null\n", "c.yml:1: window_gauges: must be a mapping with export and percentiles, not null (leave it out for the defaults)"},
		{"window_gauges:\n", "c.yml:1: window_gauges: must be a mapping"},
		{"window_gauges:\n  export: null\n", "c.yml:2: window_gauges.export: must be a list of families such as [percentiles, slo], or [] for none, not null"},
		{"window_gauges:\n  export: [slo]\n  percentiles: ~\n", "c.yml:3: window_gauges.percentiles: must be a list of levels such as [p99], or [] for none, not null"},
		{"series_limit: null\n", "c.yml:1: series_limit: must be a number of series such as 250000, not null (leave it out for 250000)"},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml+oneTarget), "c.yml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestScheduleKinds(t *testing.T) {
	turns := func(n int) *Conversation { return &Conversation{Turns: n} }
	tests := []struct {
		strategy string
		conv     *Conversation
		arrival  bool
		converse bool
	}{
		{StrategyConstant, nil, true, false},
		{StrategyPoisson, turns(1), true, false},
		{StrategyConstant, turns(2), true, true},
		{StrategyTrace, nil, true, true},
		{StrategySynchronous, nil, false, false},
		{StrategyConcurrent, turns(3), false, true},
		{StrategyThroughput, nil, false, false},
	}
	for _, tt := range tests {
		tg := Target{Schedule: Schedule{Strategy: tt.strategy}, Workload: Workload{Conversation: tt.conv}}
		if got := tg.Schedule.ArrivalSchedule(); got != tt.arrival {
			t.Errorf("%s: ArrivalSchedule = %v, want %v", tt.strategy, got, tt.arrival)
		}
		if got := tg.MayConverse(); got != tt.converse {
			t.Errorf("%s with %+v: MayConverse = %v, want %v", tt.strategy, tt.conv, got, tt.converse)
		}
	}
}

// TestWindowGaugesMissing: the families and levels of the defaults (what
// the bundled dashboards read) that a selection leaves out.
func TestWindowGaugesMissing(t *testing.T) {
	def := DefaultWindowGauges()
	for _, tc := range []struct {
		g                WindowGauges
		families, levels []string
	}{
		{def, nil, nil},
		{WindowGauges{Export: []string{"percentiles", "slo", "means"}, Percentiles: []string{"p50", "p99"}}, nil, nil},
		{WindowGauges{Export: []string{"percentiles", "slo"}, Percentiles: []string{}}, nil, []string{"p99"}},
		{WindowGauges{Export: []string{"slo"}, Percentiles: []string{"p99"}}, []string{"percentiles"}, nil},
		// Levels matter to the tokens family as well.
		{WindowGauges{Export: []string{"tokens"}, Percentiles: []string{"p50"}}, []string{"percentiles", "slo"}, []string{"p99"}},
		{WindowGauges{Export: []string{}, Percentiles: []string{}}, []string{"percentiles", "slo"}, nil},
	} {
		f, l := tc.g.Missing(def)
		if !slices.Equal(f, tc.families) || !slices.Equal(l, tc.levels) {
			t.Errorf("%+v: missing %v %v, want %v %v", tc.g, f, l, tc.families, tc.levels)
		}
	}
}
