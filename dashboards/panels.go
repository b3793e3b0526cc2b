package dashboards

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/statetimeline"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
)

// Grafana units of the panels.
const (
	unitSeconds      = "s"
	unitRequestsPerS = "reqps"
	unitRatio        = "percentunit"
	unitCount        = "short"
	unitBytes        = "bytes"
	unitOpsPerS      = "ops"
	unitNone         = "none"
	// unitTokensPerS is a Grafana custom unit: the value followed by "tok/s".
	unitTokensPerS = "suffix: tok/s"
)

// Panel sizes on Grafana's 24-column grid.
const (
	fullWidth    = 24
	halfWidth    = 12
	thirdWidth   = 8
	quarterWidth = 6
	statHeight   = 5
	chartHeight  = 8
)

// query is one PromQL query of a panel.
type query struct {
	// expr is the PromQL expression, with Grafana variables.
	expr string
	// legend is the legend format ("{{target}}").
	legend string
}

// q returns a query.
func q(expr, legend string) query { return query{expr: expr, legend: legend} }

// datasource is the reference every panel and variable uses: the data
// source chosen in the datasource variable.
func datasource() common.DataSourceRef {
	return common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${" + varDatasource + "}")}
}

// targets builds the Prometheus queries, with reference ids A, B, C, ….
func targets(qs []query, instant bool) []cog.Builder[variants.Dataquery] {
	out := make([]cog.Builder[variants.Dataquery], 0, len(qs))
	for i, qu := range qs {
		b := prometheus.NewDataqueryBuilder().
			Datasource(datasource()).
			Expr(qu.expr).
			LegendFormat(qu.legend).
			RefId(string(rune('A' + i)))
		if instant {
			b = b.Instant()
		} else {
			b = b.Range()
		}
		out = append(out, b)
	}
	return out
}

// legend is the table legend of the charts, with the last and max values.
func legend() *common.VizLegendOptionsBuilder {
	return common.NewVizLegendOptionsBuilder().
		ShowLegend(true).
		DisplayMode(common.LegendDisplayModeTable).
		Placement(common.LegendPlacementBottom).
		Calcs([]string{"lastNotNull", "max"})
}

// chart returns a time series panel of width w.
func chart(title, desc, unit string, w uint32, qs ...query) *timeseries.PanelBuilder {
	return timeseries.NewPanelBuilder().
		Title(title).
		Description(desc).
		Datasource(datasource()).
		Unit(unit).
		Targets(targets(qs, false)).
		Legend(legend()).
		Height(chartHeight).
		Span(w)
}

// statPanel returns a stat panel of width w showing each series' last value
// from instant queries.
func statPanel(title, desc, unit string, w uint32, qs ...query) *stat.PanelBuilder {
	return stat.NewPanelBuilder().
		Title(title).
		Description(desc).
		Datasource(datasource()).
		Unit(unit).
		Targets(targets(qs, true)).
		ReduceOptions(common.NewReduceDataOptionsBuilder().Calcs([]string{"lastNotNull"})).
		Orientation(common.VizOrientationAuto).
		Height(statHeight).
		Span(w)
}

// stateChart returns a state timeline panel of width w whose values are
// shown through mappings.
func stateChart(title, desc string, w uint32, mappings []dashboard.ValueMapping, qs ...query) *statetimeline.PanelBuilder {
	return statetimeline.NewPanelBuilder().
		Title(title).
		Description(desc).
		Datasource(datasource()).
		Unit(unitNone).
		Mappings(mappings).
		Targets(targets(qs, false)).
		Height(chartHeight).
		Span(w)
}

// valueMap maps each value to a text and a color.
func valueMap(entries ...mapping) []dashboard.ValueMapping {
	opts := map[string]dashboard.ValueMappingResult{}
	for i, e := range entries {
		opts[e.value] = dashboard.ValueMappingResult{Text: cog.ToPtr(e.text), Color: cog.ToPtr(e.color), Index: cog.ToPtr(int32(i))}
	}
	return []dashboard.ValueMapping{{ValueMap: &dashboard.ValueMap{Type: dashboard.MappingTypeValueToText, Options: opts}}}
}

// mapping is one entry of valueMap.
type mapping struct{ value, text, color string }

// thresholds returns absolute thresholds: base color below the first step.
func thresholds(base string, steps ...step) *dashboard.ThresholdsConfigBuilder {
	list := []dashboard.Threshold{{Color: base}}
	for _, s := range steps {
		list = append(list, dashboard.Threshold{Value: cog.ToPtr(s.value), Color: s.color})
	}
	return dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(list)
}

// step is one threshold step.
type step struct {
	value float64
	color string
}

// row returns a dashboard row.
func row(title string) *dashboard.RowBuilder { return dashboard.NewRowBuilder(title) }

// quantile is the q-quantile of a classic histogram over $__rate_interval,
// per target: metric is the family name without _bucket, matchers its
// label matchers inside the braces.
func quantile(q, metric, matchers string) string {
	return fmt.Sprintf("histogram_quantile(%s, sum by (target, le) (rate(%s_bucket{%s}[$__rate_interval])))", q, metric, matchers)
}
