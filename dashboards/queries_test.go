package dashboards_test

import (
	"strings"
	"testing"

	"github.com/llmprober/llmprober/dashboards"
)

func TestQueries(t *testing.T) {
	raw := `{"title": "d",
	  "templating": {"list": [
	    {"type": "datasource", "name": "datasource", "query": "prometheus"},
	    {"type": "query", "name": "target", "query": "label_values(m{job=\"x\"}, target)"}]},
	  "panels": [
	    {"type": "timeseries", "title": "top", "datasource": {"uid": "${datasource}"},
	     "fieldConfig": {"defaults": {"unit": "s"}},
	     "targets": [{"refId": "A", "expr": "a", "legendFormat": "{{target}}", "datasource": {"uid": "${datasource}"}}]},
	    {"type": "row", "title": "collapsed", "panels": [
	      {"type": "stat", "title": "inner", "datasource": {"uid": "p"},
	       "targets": [{"refId": "B", "expr": "b", "datasource": {"uid": "q"}}]}]}]}`
	got, err := dashboards.Queries([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := []dashboards.Query{
		{Dashboard: "d", Panel: "variable target", Expr: `count by (target) (m{job="x"})`},
		{Dashboard: "d", Panel: "top", RefID: "A", Expr: "a", Legend: "{{target}}", Unit: "s", Datasource: "${datasource}"},
		{Dashboard: "d", Panel: "inner", RefID: "B", Expr: "b", Datasource: "p | q"},
	}
	if len(got) != len(want) {
		t.Fatalf("Queries = %+v; want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("query %d = %+v; want %+v", i, got[i], want[i])
		}
	}
	if s := got[2].String(); s != "d / inner / B" {
		t.Errorf("String = %q; want d / inner / B", s)
	}
}

func TestQueriesRejectsOtherVariableQueries(t *testing.T) {
	_, err := dashboards.Queries([]byte(`{"title": "d", "templating": {"list": [{"type": "query", "name": "v", "query": "query_result(up)"}]}}`))
	if err == nil || !strings.Contains(err.Error(), "variable v") {
		t.Fatalf("error = %v; want one naming variable v", err)
	}
	if _, err := dashboards.Queries([]byte(`{`)); err == nil {
		t.Fatal("no error for truncated JSON")
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"target": "a|b", "__rate_interval": "4s", "period": "30d"}
	for _, tc := range []struct{ in, want, wantErr string }{
		{`rate(x{target=~"$target"}[$__rate_interval])`, `rate(x{target=~"a|b"}[4s])`, ""},
		{`r:rate${period}`, `r:rate30d`, ""},
		{`x{t=~"${target:regex}"}`, `x{t=~"a|b"}`, ""},
		{`x{t="[[target]]"}`, `x{t="a|b"}`, ""},
		{`x{t="$job",u="$other"}`, "", "no value for variable: job, other"},
	} {
		got, err := dashboards.Expand(tc.in, vars)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Expand(%q) error = %v; want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
