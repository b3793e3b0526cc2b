package dashboards_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"

	"github.com/llmprober/llmprober/config"
)

// windowFamilies maps the window gauges the dashboards may read to their
// family of window_gauges.export ("" for the gauges always exported).
var windowFamilies = map[string]string{
	"llmprober_window_length_seconds":                   "",
	"llmprober_window_percentile_seconds":               config.GaugesPercentiles,
	"llmprober_window_slo_attainment":                   config.GaugesSLO,
	"llmprober_window_slo_verdict":                      config.GaugesSLO,
	"llmprober_window_goodput_requests_per_second":      config.GaugesSLO,
	"llmprober_window_goodput_output_tokens_per_second": config.GaugesSLO,
}

// TestDashboardsReadTheDefaultWindowGauges: the window gauges the
// dashboards read are exactly the default window_gauges, families and
// percentile levels, which check compares a configuration with when it
// warns of panels left empty.
func TestDashboardsReadTheDefaultWindowGauges(t *testing.T) {
	var families, levels []string
	for _, q := range committedQueries(t) {
		for _, vs := range selectors(t, q) {
			if !strings.HasPrefix(vs.Name, "llmprober_window_") {
				continue
			}
			f, ok := windowFamilies[vs.Name]
			if !ok {
				t.Errorf("%s reads %s, a window gauge of no known family", q, vs.Name)
			}
			if f != "" && !slices.Contains(families, f) {
				families = append(families, f)
			}
			for _, m := range vs.LabelMatchers {
				if m.Name == "percentile" && m.Type == labels.MatchEqual && !slices.Contains(levels, m.Value) {
					levels = append(levels, m.Value)
				}
			}
		}
	}
	def := config.DefaultWindowGauges()
	slices.Sort(families)
	want := slices.Sorted(slices.Values(def.Export))
	if !slices.Equal(families, want) || !slices.Equal(levels, def.Percentiles) {
		t.Errorf("the dashboards read families %v at levels %v; the default window_gauges are %v at %v",
			families, levels, want, def.Percentiles)
	}
}
