package dashboards_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// scrapeSeries are the series Prometheus adds to every scrape.
var scrapeSeries = []string{"up", "scrape_duration_seconds", "scrape_samples_scraped",
	"scrape_samples_post_metric_relabeling", "scrape_series_added"}

// knownMetrics returns every metric name a dashboard may read: the
// exporter's golden exposition, the families of a live registry (window
// gauges, build info, Go and process collectors, OTLP export counts), the
// records of the bundled rules, and Prometheus's scrape series.
func knownMetrics(t *testing.T) map[string]bool {
	t.Helper()
	known := map[string]bool{}
	for _, n := range scrapeSeries {
		known[n] = true
	}
	for _, n := range goldenNames(t, "../exporter/testdata/golden.prom") {
		known[n] = true
	}
	for _, n := range liveNames(t) {
		known[n] = true
	}
	for _, n := range recordedNames(t, "../deploy/llmprober-rules.yml") {
		known[n] = true
	}
	return known
}

// goldenNames returns the sample names of an exposition file.
func goldenNames(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line[:strings.IndexAny(line, "{ ")])
	}
	if len(out) == 0 {
		t.Fatalf("%s has no samples", path)
	}
	return out
}

// recordedNames returns the record names of a Prometheus rule file.
func recordedNames(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Groups []struct {
			Rules []struct {
				Record string `yaml:"record"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				out = append(out, r.Record)
			}
		}
	}
	return out
}

// liveNames builds the exporter as the daemon does (with OTLP towards a
// local receiver), feeds it one successful streamed request, and returns
// the sample names its registry gathers.
func liveNames(t *testing.T) []string {
	t.Helper()
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer rcv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", rcv.URL+"/v1/metrics")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "3600000")
	getenv := func(k string) string {
		if k == "OTEL_METRICS_EXPORTER" {
			return "otlp"
		}
		return os.Getenv(k)
	}
	ctx := context.Background()
	m, err := exporter.NewMetrics(ctx, exporter.Options{Getenv: getenv})
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	defer func() { _ = m.Shutdown(ctx) }()
	mfs := feedLive(t, m)
	var out []string
	for _, mf := range mfs {
		n := mf.GetName()
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			out = append(out, n+"_bucket", n+"_sum", n+"_count")
			continue
		}
		out = append(out, n)
	}
	return out
}

// feedLive records one request into an Observer and a window store on m
// and gathers m's registry.
func feedLive(t *testing.T, m *exporter.Metrics) []*dto.MetricFamily {
	t.Helper()
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	objective := slo.Objective{Name: "default", Attainment: 0.99, Period: 30 * 24 * time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.TTFT, Max: 300 * time.Millisecond}}}
	target := exporter.Target{Name: "alpha", Model: "m", API: "chat", Stream: true, Objectives: []slo.Objective{objective}}
	o, err := exporter.NewObserver(m, []exporter.Target{target})
	if err != nil {
		t.Fatalf("NewObserver: %v", err)
	}
	defer func() {
		if err := o.Close(); err != nil {
			t.Errorf("Close observer: %v", err)
		}
	}()
	clk := clock.NewFake(t0)
	store, err := window.NewStore("alpha", window.Settings{Windows: []time.Duration{time.Minute},
		Objectives: []slo.Objective{objective}, Clock: clk, CacheTTL: -1})
	if err != nil {
		t.Fatalf("NewStore: %v", err)
	}
	w, err := exporter.NewWindows(m, o, []*window.Store{store})
	if err != nil {
		t.Fatalf("NewWindows: %v", err)
	}
	defer func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close windows: %v", err)
		}
	}()
	rec := &probe.Record{Target: "alpha", API: "chat", Stream: true, TargetedStart: at(0), RequestStart: at(10),
		FirstChunk: at(100), FirstToken: at(100), FirstOutputToken: at(100), LastToken: at(300), End: at(310),
		ChunkGaps: chunkGaps(at(100), at(200), at(300)), PromptTokens: 8, PromptTokensFrom: probe.TokensFromUsage,
		OutputTokens: 3, OutputTokensFrom: probe.TokensFromUsage, Iterations: 3, Outcome: probe.Successful, HTTPStatus: 200}
	for _, obs := range []probe.Observer{o, store} {
		obs.State("alpha", probe.StateReady, 0)
		obs.Scheduled("alpha")
		obs.Started("alpha")
		obs.Finished(rec)
	}
	clk.Set(at(1000))
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return mfs
}

// chunkGaps returns the chunk gaps of chunks that arrived at ts.
func chunkGaps(ts ...time.Time) *probe.Gaps {
	g := &probe.Gaps{}
	for _, t := range ts {
		g.Add(t)
	}
	return g
}
