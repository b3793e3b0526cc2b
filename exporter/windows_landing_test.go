package exporter

import (
	"testing"

	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

func TestWindowFigureText(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	pcts := func(v *float64, ci *stats.Interval) []stats.Percentile {
		return []stats.Percentile{{Level: stats.P99, Value: v, CI: ci}}
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		// 0.0805 s ± (0.0844 − 0.0766)/2 = 0.0039 s.
		{"mean with interval", meanText(window.Summary{Summary: stats.Summary{Mean: f(0.0805), MeanCI: &stats.Interval{Lo: 0.0766, Hi: 0.0844}}}), "80.5 ± 3.9 ms"},
		{"mean without interval", meanText(window.Summary{Summary: stats.Summary{Mean: f(0.0805)}}), "80.5 ms"},
		{"no mean", meanText(window.Summary{}), "—"},
		{"bounded percentile", percentileText(window.Summary{Summary: stats.Summary{Percentiles: pcts(f(0.0951), &stats.Interval{Lo: 0.0902, Hi: 0.1013})}}, stats.P99, 0.95), "95.1 ms [90.2, 101.3]"},
		{"unbounded percentile", percentileText(window.Summary{Summary: stats.Summary{Percentiles: pcts(f(0.0951), nil)}}, stats.P99, 0.95), "95.1 ms*"},
		{"intervals off", percentileText(window.Summary{Summary: stats.Summary{Percentiles: pcts(f(0.0951), nil)}}, stats.P99, 0), "95.1 ms"},
		{"weighted percentile", percentileText(window.Summary{Weighted: true, Summary: stats.Summary{Percentiles: pcts(f(0.0951), nil)}}, stats.P99, 0.95), "95.1 ms"},
		{"estimated percentile", percentileText(window.Summary{Approximate: true, Summary: stats.Summary{Percentiles: pcts(f(0.0951), nil)}}, stats.P99, 0.95), "≈95.1 ms"},
		{"no percentile", percentileText(window.Summary{Summary: stats.Summary{Percentiles: pcts(nil, nil)}}, stats.P99, 0.95), "—"},
		// 8 of 10 conforming over 10 s: Wilson [0.4902, 0.9433] at 0.95.
		{"attainment", attainmentText(window.Attainment{Target: 0.99, Ratio: f(0.8), CI: &stats.Interval{Lo: 0.4902, Hi: 0.9433},
			Verdict: slo.Breached, Goodput: f(0.8)}),
			"attainment 80.0% [49.0, 94.3] of 99%: breached, goodput 0.800/s"},
		{"attainment met", attainmentText(window.Attainment{Target: 0.4, Ratio: f(0.8), CI: &stats.Interval{Lo: 0.4902, Hi: 0.9433},
			Verdict: slo.Met, Goodput: f(0.8)}),
			"attainment 80.0% [49.0, 94.3] of 40%: met, goodput 0.800/s"},
		{"attainment without interval", attainmentText(window.Attainment{Target: 0.999, Ratio: f(1), Goodput: f(0.25)}),
			"attainment 100.0% of 99.9%: inconclusive, goodput 0.250/s"},
		{"nothing evaluated", attainmentText(window.Attainment{Target: 0.99, Goodput: f(0)}), "inconclusive: no evaluated request"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
