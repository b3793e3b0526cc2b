package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmprober/llmprober/dashboards"
)

// otherApp serves the metrics of another application that Prometheus
// scrapes beside llmprober: the standard OpenTelemetry GenAI client
// histograms without a target label, and the usual process metrics. The
// counters grow by one request (10 tokens, 0.5 s) per scrape.
func otherApp() http.Handler {
	var scrapes atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := scrapes.Add(1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, `# TYPE gen_ai_client_token_usage histogram
gen_ai_client_token_usage_bucket{gen_ai_token_type="input",le="+Inf"} %[1]d
gen_ai_client_token_usage_sum{gen_ai_token_type="input"} %[2]d
gen_ai_client_token_usage_count{gen_ai_token_type="input"} %[1]d
# TYPE gen_ai_client_operation_duration_seconds histogram
gen_ai_client_operation_duration_seconds_bucket{le="1"} %[1]d
gen_ai_client_operation_duration_seconds_bucket{le="+Inf"} %[1]d
gen_ai_client_operation_duration_seconds_sum %[3]g
gen_ai_client_operation_duration_seconds_count %[1]d
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total %[3]g
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1e+06
`, n, 10*n, 0.5*float64(n))
	})
}

// liveVariable is the part of a template variable read here.
type liveVariable struct {
	Name       string  `json:"name"`
	Type       string  `json:"type"`
	Query      any     `json:"query"`
	AllValue   *string `json:"allValue"`
	IncludeAll bool    `json:"includeAll"`
}

// labelValuesQuery matches Grafana's label_values(selector, label).
var labelValuesQuery = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// legendLabel matches {{label}} in a legend format.
var legendLabel = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

// checkAllSelected selects All in every multi-value variable of each
// dashboard, as Grafana does (the allValue if one is set, else the values
// label_values offers as a regex alternation), runs every panel query and
// fails on a series of another job than llmprober, an overview series
// without a target, or two series of one query under the same legend.
func checkAllSelected(t *testing.T, prom *prometheus) {
	t.Helper()
	for _, g := range dashboards.All() {
		raw, err := os.ReadFile(filepath.Join("..", "..", "dashboards", g.File))
		if err != nil {
			t.Fatal(err)
		}
		vars := allSelected(t, prom, g.File, raw)
		qs, err := dashboards.Queries(raw)
		if err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		for _, q := range qs {
			if q.RefID == "" {
				continue
			}
			checkSeries(t, prom, q, vars)
		}
	}
}

// allSelected returns the variable values of the dashboard raw with All
// selected in each multi-value variable.
func allSelected(t *testing.T, prom *prometheus, file string, raw []byte) map[string]string {
	t.Helper()
	var d struct {
		Templating struct {
			List []liveVariable `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	vars := maps.Clone(liveVars)
	for _, v := range d.Templating.List {
		if v.Type != "query" || !v.IncludeAll {
			continue
		}
		if v.AllValue != nil {
			vars[v.Name] = *v.AllValue
			continue
		}
		s, _ := v.Query.(string)
		m := labelValuesQuery.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("%s: variable %s: query %q is not label_values", file, v.Name, s)
		}
		sel, err := dashboards.Expand(m[1], vars)
		if err != nil {
			t.Fatalf("%s: variable %s: %v", file, v.Name, err)
		}
		values, err := prom.labelValues(m[2], sel)
		if err != nil || len(values) == 0 {
			t.Fatalf("%s: variable %s: values %v, %v", file, v.Name, values, err)
		}
		for i, val := range values {
			values[i] = regexp.QuoteMeta(val)
		}
		vars[v.Name] = "(" + strings.Join(values, "|") + ")"
	}
	t.Logf("%s with All: job=%s target=%s", file, vars["job"], vars["target"])
	return vars
}

// checkSeries runs q with vars and checks the labels of its series.
func checkSeries(t *testing.T, prom *prometheus, q dashboards.Query, vars map[string]string) {
	t.Helper()
	expr, err := dashboards.Expand(q.Expr, vars)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	series, err := prom.vector(expr)
	if err != nil {
		t.Errorf("%s: %v", q, err)
		return
	}
	seen := map[string]bool{}
	for _, ls := range series {
		if job, ok := ls["job"]; ok && job != "llmprober" {
			t.Errorf("%s: series %v of job %s", q, ls, job)
		}
		if q.Dashboard == "llmprober overview" && ls["target"] == "" {
			t.Errorf("%s: series %v without a target", q, ls)
		}
		legend := legendLabel.ReplaceAllStringFunc(q.Legend, func(ref string) string {
			return ls[legendLabel.FindStringSubmatch(ref)[1]]
		})
		if seen[legend] {
			t.Errorf("%s: two series under legend %q (%v)", q, legend, ls)
		}
		seen[legend] = true
	}
}

// getJSON decodes the JSON answer of Prometheus's API at path into v.
func (p *prometheus) getJSON(path string, v any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("could not query: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("could not read answer (HTTP %d): %w", resp.StatusCode, err)
	}
	return nil
}

// labelValues returns the values of label in the series of selector.
func (p *prometheus) labelValues(label, selector string) ([]string, error) {
	var res struct {
		Status string   `json:"status"`
		Error  string   `json:"error"`
		Data   []string `json:"data"`
	}
	if err := p.getJSON("/api/v1/label/"+label+"/values?match[]="+url.QueryEscape(selector), &res); err != nil {
		return nil, err
	}
	if res.Status != "success" {
		return nil, fmt.Errorf("label values failed: %s", res.Error)
	}
	return res.Data, nil
}

// vector returns the label sets of an instant query's series; none for a
// scalar.
func (p *prometheus) vector(expr string) ([]map[string]string, error) {
	var res struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := p.getJSON("/api/v1/query?query="+url.QueryEscape(expr), &res); err != nil {
		return nil, err
	}
	if res.Status != "success" {
		return nil, fmt.Errorf("query failed: %s", res.Error)
	}
	out := make([]map[string]string, 0, len(res.Data.Result))
	for _, s := range res.Data.Result {
		out = append(out, s.Metric)
	}
	return out, nil
}
