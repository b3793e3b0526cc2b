package dashboards_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/llmprober/llmprober/dashboards"
)

// Titles of the bundled dashboards.
const (
	overviewTitle = "llmprober overview"
	healthTitle   = "llmprober prober health"
)

// TestVariablesExpandAllToValues: no variable sets a custom all value, so
// Grafana expands All to the offered values; .* would match other jobs'
// series and series without the label (other applications' gen_ai_client_*
// metrics). Both dashboards take their jobs from llmprober_build_info.
func TestVariablesExpandAllToValues(t *testing.T) {
	for _, g := range dashboards.All() {
		raw, err := os.ReadFile(g.File)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Templating struct {
				List []map[string]any `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		var names []string
		for _, v := range d.Templating.List {
			name, _ := v["name"].(string)
			names = append(names, name)
			if a, ok := v["allValue"]; ok {
				t.Errorf("%s: variable %s has allValue %v; want none", g.File, name, a)
			}
			if name == "job" && v["query"] != "label_values(llmprober_build_info, job)" {
				t.Errorf("%s: variable job query = %v; want label_values(llmprober_build_info, job)", g.File, v["query"])
			}
		}
		if !slices.Contains(names, "job") || !slices.Contains(names, "target") {
			t.Errorf("%s: variables %v; want job and target among them", g.File, names)
		}
	}
}

// sentinelVars expand the job, target and objective variables to values no
// label has, so that a matcher's origin is plain.
func sentinelVars() map[string]string {
	vars := maps.Clone(testVars)
	vars["job"], vars["target"], vars["objective"] = "JOB_VAR", "TARGET_VAR", "OBJECTIVE_VAR"
	return vars
}

// selectors returns the vector selectors of q with the sentinel variables.
func selectors(t *testing.T, q dashboards.Query) []*parser.VectorSelector {
	t.Helper()
	expanded, err := dashboards.Expand(q.Expr, sentinelVars())
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	node, err := parser.NewParser(parser.Options{}).ParseExpr(expanded)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []*parser.VectorSelector
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out
}

// hasMatcher reports whether vs matches label by regex against value.
func hasMatcher(vs *parser.VectorSelector, label, value string) bool {
	return slices.ContainsFunc(vs.LabelMatchers, func(m *labels.Matcher) bool {
		return m.Name == label && m.Type == labels.MatchRegexp && m.Value == value
	})
}

// TestSelectorsCarryVariables: every selector of both dashboards carries
// job=~"$job" (but the job variable's own), except the recording rules',
// which aggregate jobs away and must not; every overview selector carries
// target=~"$target" (but the job and target variables'), and so does every
// selector of the health dashboard's schedule and gate rows.
func TestSelectorsCarryVariables(t *testing.T) {
	scrapeLevel := []string{"llmprober_build_info", "llmprober_collection_timestamp_seconds", "llmprober_otlp_exports_total",
		"process_cpu_seconds_total", "process_resident_memory_bytes", "llmprober_target_info"}
	checked := 0
	for _, q := range committedQueries(t) {
		if q.Panel == "variable job" {
			continue
		}
		for _, vs := range selectors(t, q) {
			checked++
			rule := strings.Contains(vs.Name, ":")
			if got := hasMatcher(vs, "job", "JOB_VAR"); got == rule {
				t.Errorf("%s: selector %s: job matcher %v; want %v", q, vs, got, !rule)
			}
			wantTarget := q.Dashboard == overviewTitle && q.Panel != "variable target" ||
				q.Dashboard == healthTitle && !slices.Contains(scrapeLevel, vs.Name)
			if wantTarget && !hasMatcher(vs, "target", "TARGET_VAR") {
				t.Errorf("%s: selector %s has no target=~\"$target\"", q, vs)
			}
		}
	}
	if checked < 60 {
		t.Errorf("checked %d selectors; want the dashboards' 60 or more", checked)
	}
}

// keepsInstance reports whether the result of n keeps the instance label
// of llmprober's series (recording rules have none).
func keepsInstance(n parser.Node) bool {
	switch e := n.(type) {
	case *parser.VectorSelector:
		return !strings.Contains(e.Name, ":")
	case *parser.MatrixSelector:
		return keepsInstance(e.VectorSelector)
	case *parser.ParenExpr:
		return keepsInstance(e.Expr)
	case *parser.Call:
		return slices.ContainsFunc(e.Args, func(a parser.Expr) bool {
			return a.Type() != parser.ValueTypeScalar && keepsInstance(a)
		})
	case *parser.AggregateExpr:
		return slices.Contains(e.Grouping, "instance") != e.Without
	case *parser.BinaryExpr:
		if e.VectorMatching != nil && e.VectorMatching.On {
			return slices.Contains(e.VectorMatching.MatchingLabels, "instance")
		}
		if e.LHS.Type() == parser.ValueTypeVector {
			return keepsInstance(e.LHS)
		}
		return keepsInstance(e.RHS)
	}
	return false
}

// TestLegendsNameInstance: a query whose series stay per instance (the
// window gauges, the per-instance gate state) names the instance in its
// legend, or several llmprober instances draw series with equal names.
func TestLegendsNameInstance(t *testing.T) {
	perInstance := 0
	for _, q := range committedQueries(t) {
		if strings.HasPrefix(q.Panel, "variable ") {
			continue
		}
		expanded, err := dashboards.Expand(q.Expr, testVars)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		node, err := parser.NewParser(parser.Options{}).ParseExpr(expanded)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !keepsInstance(node) {
			continue
		}
		perInstance++
		if !strings.Contains(q.Legend, "{{instance}}") {
			t.Errorf("%s: series per instance, legend %q lacks {{instance}}", q, q.Legend)
		}
	}
	// Eleven window gauge queries (exact p99 of seven quantities,
	// attainment, two goodputs and the verdict), the gate state and five
	// per-instance panels of the reporting and export row (replicas, report
	// age, OTLP exports, CPU, memory).
	if perInstance != 17 {
		t.Errorf("%d queries keep the instance; want 17", perInstance)
	}
}

func TestKeepsInstance(t *testing.T) {
	for expr, want := range map[string]bool{
		`a{x="1"}`:                           true,
		`rate(a[1m])`:                        true,
		`sum by (target) (a)`:                false,
		`max by (job, instance, target) (a)`: true,
		`sum without (instance) (a)`:         false,
		`b:rate5m`:                           false,
		`1 - b:rate5m / on (target) (1 - max by (target) (a))`: false,
		`histogram_quantile(0.5, sum by (le) (rate(a[1m])))`:   false,
		`max by (instance) (a) + 2 * max by (instance) (b)`:    true,
	} {
		node, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := keepsInstance(node); got != want {
			t.Errorf("keepsInstance(%s) = %v; want %v", expr, got, want)
		}
	}
}
