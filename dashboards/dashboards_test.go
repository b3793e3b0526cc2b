package dashboards_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"

	"github.com/llmprober/llmprober/dashboards"
)

var update = flag.Bool("update", false, "rewrite the committed dashboard JSON from the generator")

// TestCommittedDashboards fails when a committed JSON file differs from what
// the generator produces (run with -update to rewrite them after checking).
func TestCommittedDashboards(t *testing.T) {
	for _, g := range dashboards.All() {
		t.Run(g.File, func(t *testing.T) {
			d, err := g.Build()
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			got, err := dashboards.Render(d)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if *update {
				if err := os.WriteFile(g.File, got, 0o644); err != nil {
					t.Fatalf("write: %v", err)
				}
			}
			want, err := os.ReadFile(g.File)
			if err != nil {
				t.Fatalf("read committed dashboard (run with -update to create it): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale: the generator's output differs (run go test ./dashboards -update after checking)", g.File)
			}
		})
	}
}

// testVars are the variable values the static checks expand queries with.
var testVars = map[string]string{
	"datasource": "prom", "target": "alpha", "objective": "default", "window": "1m", "period": "30d",
	"job": "llmprober", "__rate_interval": "4s", "__interval": "1s", "__range": "1h",
}

// committedQueries returns every query of every committed dashboard.
func committedQueries(t *testing.T) []dashboards.Query {
	t.Helper()
	var out []dashboards.Query
	for _, g := range dashboards.All() {
		raw, err := os.ReadFile(g.File)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := dashboards.Queries(raw)
		if err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		out = append(out, qs...)
	}
	return out
}

// rangeSelector matches the range of a range vector selector or subquery.
var rangeSelector = regexp.MustCompile(`\[[^\]]*\]`)

// TestPanelConventions: every panel has a unit and reads the datasource
// variable, and every range is $__rate_interval (or $__range in a stat).
func TestPanelConventions(t *testing.T) {
	qs := committedQueries(t)
	if len(qs) < 40 {
		t.Fatalf("found %d queries; want the dashboards' 40 or more", len(qs))
	}
	for _, q := range qs {
		if strings.HasPrefix(q.Panel, "variable ") {
			continue
		}
		if q.Unit == "" {
			t.Errorf("%s: no unit", q)
		}
		if q.Datasource != "${datasource}" {
			t.Errorf("%s: data source %q; want ${datasource} on panel and target", q, q.Datasource)
		}
		for _, r := range rangeSelector.FindAllString(q.Expr, -1) {
			if r != "[$__rate_interval]" && r != "[$__range]" {
				t.Errorf("%s: range %s; want [$__rate_interval]", q, r)
			}
		}
	}
}

// TestQueriesReadExportedMetrics parses every query, with the variables
// expanded, and fails on a metric name that neither llmprober exports, nor a
// bundled recording rule records, nor Prometheus adds to every scrape.
func TestQueriesReadExportedMetrics(t *testing.T) {
	known := knownMetrics(t)
	used := map[string]bool{}
	for _, q := range committedQueries(t) {
		names, err := queryMetrics(q.Expr, testVars)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		for _, n := range names {
			used[n] = true
			if !known[n] {
				t.Errorf("%s: reads %s, which llmprober does not export", q, n)
			}
		}
	}
	// The panels the issue asks for read these; losing one is a regression.
	for _, n := range []string{
		"llmprober:slo_error_ratio:rate30d", "llmprober_slo_objective_ratio", "llmprober_window_slo_attainment",
		"llmprober_slo_requests_conforming_total", "llmprober_time_to_first_token_seconds_bucket",
		"llmprober_time_to_first_output_token_seconds_bucket", "llmprober_inter_token_latency_seconds_bucket",
		"llmprober_time_per_output_token_seconds_bucket", "gen_ai_client_operation_duration_seconds_bucket",
		"gen_ai_client_token_usage_sum", "llmprober_dispatch_delay_seconds_bucket", "llmprober_probes_dropped_total",
		"llmprober_requests_in_flight", "llmprober_target_state", "llmprober_build_info", "llmprober_otlp_exports_total",
		"process_cpu_seconds_total", "process_resident_memory_bytes",
	} {
		if !used[n] {
			t.Errorf("no query reads %s", n)
		}
	}
}

// errNoName means a selector has no fixed metric name.
var errNoName = errors.New("selector without a metric name")

// queryMetrics returns the metric names expr reads once vars are expanded.
func queryMetrics(expr string, vars map[string]string) ([]string, error) {
	expanded, err := dashboards.Expand(expr, vars)
	if err != nil {
		return nil, err
	}
	node, err := parser.NewParser(parser.Options{}).ParseExpr(expanded)
	if err != nil {
		return nil, fmt.Errorf("could not parse %q: %w", expanded, err)
	}
	var names []string
	var inspectErr error
	parser.Inspect(node, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			if m.Name == "__name__" && m.Type.String() == "=" {
				name = m.Value
			}
		}
		if name == "" {
			inspectErr = fmt.Errorf("%w: %s", errNoName, vs)
		} else if !slices.Contains(names, name) {
			names = append(names, name)
		}
		return nil
	})
	return names, inspectErr
}

func TestQueryMetrics(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		want       []string
		wantErr    string
	}{
		{"rate and recording rule with the period expanded",
			`sum(rate(a_total{target=~"$target"}[$__rate_interval])) / llmprober:slo_error_ratio:rate${period}`,
			[]string{"a_total", "llmprober:slo_error_ratio:rate30d"}, ""},
		{"name in a matcher", `{__name__="b", target="x"} + b`, []string{"b"}, ""},
		{"regex name", `{__name__=~"b.*"}`, nil, "selector without a metric name"},
		{"unknown variable", `a{x="$nope"}`, nil, "no value for variable: nope"},
		{"not PromQL", `sum(a`, nil, "could not parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := queryMetrics(tc.expr, testVars)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v; want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("queryMetrics = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}
