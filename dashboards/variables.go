package dashboards

import (
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// Names of the template variables.
const (
	varDatasource = "datasource"
	varTarget     = "target"
	varObjective  = "objective"
	varWindow     = "window"
	varPeriod     = "period"
	varJob        = "job"
)

// byJob selects the series of the chosen scrape jobs.
const byJob = `job=~"$job"`

// datasourceVariable chooses the Prometheus data source of every panel.
func datasourceVariable() *dashboard.DatasourceVariableBuilder {
	return dashboard.NewDatasourceVariableBuilder(varDatasource).
		Label("Data source").
		Type("prometheus")
}

// labelVariable offers the values of label in the series of selector
// (Grafana's label_values); multi allows several values and "All". It sets
// no custom all value, so Grafana expands All to the offered values
// ((a|b|c)): a regex such as .* would also match series without the label
// and series of other applications.
func labelVariable(name, label, selector, description string, multi bool) *dashboard.QueryVariableBuilder {
	b := dashboard.NewQueryVariableBuilder(name).
		Label(label).
		Description(description).
		Datasource(datasource()).
		Query(dashboard.StringOrMap{String: cog.ToPtr("label_values(" + selector + ", " + name + ")")}).
		Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
		Sort(dashboard.VariableSortAlphabeticalAsc)
	if multi {
		b = b.Multi(true).IncludeAll(true)
	}
	return b
}

// jobVariable selects the scrape jobs of llmprober: those of its build
// info series, so that All never reaches other applications' jobs.
func jobVariable() *dashboard.QueryVariableBuilder {
	return labelVariable(varJob, "Job", "llmprober_build_info",
		"Scrape jobs of llmprober (the job label of llmprober_build_info).", true)
}

// targetVariable selects targets among those llmprober describes in the
// chosen jobs.
func targetVariable() *dashboard.QueryVariableBuilder {
	return labelVariable(varTarget, "Target", `llmprober_target_info{`+byJob+`}`,
		"Probed targets (the target label).", true)
}

// periodVariable is the SLO period whose error-ratio recording rule
// (llmprober:slo_error_ratio:rate<period>, from "llmprober rules") the
// attainment and error budget panels read.
func periodVariable() *dashboard.CustomVariableBuilder {
	option := func(v string, selected bool) dashboard.VariableOption {
		return dashboard.VariableOption{
			Text:     dashboard.StringOrArrayOfString{String: cog.ToPtr(v)},
			Value:    dashboard.StringOrArrayOfString{String: cog.ToPtr(v)},
			Selected: cog.ToPtr(selected),
		}
	}
	periods := []string{"30d", "28d", "14d", "7d"}
	opts := make([]dashboard.VariableOption, 0, len(periods))
	for i, p := range periods {
		opts = append(opts, option(p, i == 0))
	}
	return dashboard.NewCustomVariableBuilder(varPeriod).
		Label("SLO period").
		Description("Period of the objective sets, as in their llmprober:slo_error_ratio:rate<period> recording rule.").
		Values(dashboard.StringOrMap{String: cog.ToPtr("30d,28d,14d,7d")}).
		Current(opts[0]).
		Options(opts)
}
