package dashboards_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunks"

	"github.com/llmprober/llmprober/dashboards"
)

// TestProcessPanelsOnlyLLMProber evaluates the CPU and memory panels over
// a job whose Service also reaches a vLLM: both processes export
// process_* series, only llmprober has llmprober_build_info, so only
// llmprober's series are drawn.
func TestProcessPanelsOnlyLLMProber(t *testing.T) {
	point := func(name, instance string, v0, v1 float64) storage.Series {
		return storage.NewListSeries(labels.FromStrings("__name__", name, "job", "llmprober", "instance", instance),
			[]chunks.Sample{floatSample{0, v0}, floatSample{30_000, (v0 + v1) / 2}, floatSample{60_000, v1}})
	}
	series := []storage.Series{
		point("llmprober_build_info", "10.0.0.1:9477", 1, 1),
		point("process_cpu_seconds_total", "10.0.0.1:9477", 0, 6),
		point("process_resident_memory_bytes", "10.0.0.1:9477", 3e7, 3e7),
		point("process_cpu_seconds_total", "10.0.0.1:8000", 0, 60),
		point("process_resident_memory_bytes", "10.0.0.1:8000", 8e9, 8e9),
	}
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	// CPU 6 s in 60 s: 3 s over the 30 s between the samples in the
	// (0 s, 60 s] range, 0.1 once extrapolated to the range; the vLLM's 1.
	for panel, want := range map[string]string{"CPU": "10.0.0.1:9477=0.1", "Resident memory": "10.0.0.1:9477=3e+07"} {
		expr := panelQuery(t, healthTitle, panel, map[string]string{"job": "llmprober", "__rate_interval": "1m"})
		qry, err := engine.NewInstantQuery(context.Background(), memQueryable(series), nil, expr, time.UnixMilli(60_000))
		if err != nil {
			t.Fatalf("%s: %v", panel, err)
		}
		vec, err := qry.Exec(context.Background()).Vector()
		if err != nil {
			t.Fatalf("%s: %v", panel, err)
		}
		var got []string
		for _, s := range vec {
			got = append(got, fmt.Sprintf("%s=%g", s.Metric.Get("instance"), s.F))
		}
		slices.Sort(got)
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: %s; want %s", panel, g, want)
		}
		qry.Close()
	}
}

// panelQuery returns the first query of a panel with vars expanded.
func panelQuery(t *testing.T, dashboard, panel string, vars map[string]string) string {
	t.Helper()
	for _, q := range committedQueries(t) {
		if q.Dashboard == dashboard && q.Panel == panel {
			expanded, err := dashboards.Expand(q.Expr, vars)
			if err != nil {
				t.Fatal(err)
			}
			return expanded
		}
	}
	t.Fatalf("no panel %s in %s", panel, dashboard)
	return ""
}
