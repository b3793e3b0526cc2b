package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// TestRunExportsBeforeTheFirstProbe: with an export interval of an hour,
// the daemon still exports at once when it starts, before it sends any
// probe: the first export's llmprober counters are all 0, so the first
// sample a collector passes on of each series is 0. The final flush then
// has the probes.
func TestRunExportsBeforeTheFirstProbe(t *testing.T) {
	exports := make(chan *collectorpb.ExportMetricsServiceRequest, 8)
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		req := &collectorpb.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(raw, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		exports <- req
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(otlp.Close)
	env := map[string]string{
		"OTEL_METRICS_EXPORTER":               "otlp",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": otlp.URL + "/v1/metrics",
		"OTEL_EXPORTER_OTLP_COMPRESSION":      "none",
		"OTEL_METRIC_EXPORT_INTERVAL":         "3600000",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	s := startSim(t)
	cfg := "targets:\n  - {name: one, base_url: \"" + s.URL() + "/v1\", model: sim-model, schedule: {rate: 50}}\n"
	r := startRun(t, []string{"run", "--config", writeFile(t, "one.yml", cfg), "--listen-address", "127.0.0.1:0"}, env)
	var first *collectorpb.ExportMetricsServiceRequest
	select {
	case first = <-exports:
	case <-time.After(10 * time.Second):
		t.Fatal("no export at start")
	}
	eventually(t, 10*time.Second, "probes sent", func() bool {
		fams, _ := r.scrape(t)
		return counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"}) > 0
	})
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	var last *collectorpb.ExportMetricsServiceRequest
	select {
	case last = <-exports:
	default:
		t.Fatal("only one export: the start export is missing")
	}
	for _, name := range []string{"llmprober.probes.scheduled", "llmprober.requests"} {
		if got, ok := sumOf(first, name); !ok || got != 0 {
			t.Errorf("first export: %s = %v (present %v), want 0", name, got, ok)
		}
	}
	if got, _ := sumOf(last, "llmprober.probes.scheduled"); got == 0 {
		t.Error("the final flush has no probe scheduled")
	}
}

// sumOf totals the points of the monotonic sum called name in req.
func sumOf(req *collectorpb.ExportMetricsServiceRequest, name string) (float64, bool) {
	var total float64
	found := false
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if m.GetName() != name || m.GetSum() == nil {
					continue
				}
				found = true
				for _, p := range m.GetSum().GetDataPoints() {
					total += p.GetAsDouble() + float64(p.GetAsInt())
				}
			}
		}
	}
	return total, found
}
