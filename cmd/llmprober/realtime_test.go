package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe/sim"
)

// TestRunRealtimeTarget probes the sim with a realtime WebSocket target and
// an HTTP one, and checks that the round-trip metrics are in /metrics, in
// the window gauges and in the JSON API for the WebSocket target, and
// absent for the HTTP target. The sim answers each 100 ms audio chunk 50 ms
// after it arrived, so both round-trip metrics are at least 50 ms.
func TestRunRealtimeTarget(t *testing.T) {
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 5 * time.Millisecond}, OutputTokens: 4,
		Realtime: sim.RealtimeConfig{DeltaLatency: sim.Latency{Mean: 50 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := fmt.Sprintf(`window_gauges: {export: [means, rates]}
targets:
  - name: ws
    base_url: %[1]s/v1
    model: sim-model
    backend: openai_websocket
    timeout: 5s
    readiness: {path: /health, interval: 50ms}
    realtime: {audio_duration: 300ms, chunk_duration: 100ms, pacing: realtime}
    schedule: {rate: 10}
  - name: http
    base_url: %[1]s/v1
    model: sim-model
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 4}
    schedule: {rate: 10}
`, s.URL())
	r := startRun(t, []string{"run", "--config", writeFile(t, "c.yml", cfg), "--listen-address", "127.0.0.1:0"}, nil)
	eventually(t, 20*time.Second, "3 successful requests per target", func() bool {
		fams, _ := r.scrape(t)
		return counter(fams, "llmprober_requests_total", map[string]string{"target": "ws", "outcome": "successful"}) >= 3 &&
			counter(fams, "llmprober_requests_total", map[string]string{"target": "http", "outcome": "successful"}) >= 3
	})
	// Window snapshots are reused for 1 s: wait until one has the requests.
	eventually(t, 20*time.Second, "the 1m window of ws to hold 3 requests", func() bool {
		fams, _ := r.scrape(t)
		v, _ := gauge(fams, "llmprober_window_finished_requests", map[string]string{"target": "ws", "window": "1m", "status": "successful"})
		return v >= 3
	})
	fams, _ := r.scrape(t)
	if n := counter(fams, "llmprober_requests_total", map[string]string{"target": "ws", "outcome": "errored"}); n != 0 {
		t.Errorf("%v errored realtime requests, want none", n)
	}
	for _, name := range []string{"llmprober_time_to_last_round_trip_seconds", "llmprober_average_round_trip_time_seconds"} {
		count, sum := histogram(fams, name, map[string]string{"target": "ws"})
		if count < 3 || sum/float64(count) < 0.05 || sum/float64(count) > 2 {
			t.Errorf("%s{target=ws}: %d samples, mean %v; want at least 3, mean in [0.05, 2]", name, count, sum/float64(count))
		}
		if hasSeries(fams, name, map[string]string{"target": "http"}) {
			t.Errorf("%s has a series for the HTTP target", name)
		}
	}
	for _, metric := range []string{"time_to_last_round_trip", "average_round_trip_time"} {
		labels := map[string]string{"target": "ws", "window": "1m", "metric": metric}
		if v, ok := gauge(fams, "llmprober_window_mean_seconds", labels); !ok || v < 0.05 {
			t.Errorf("window mean of %s for ws: %v (present %v), want at least 0.05", metric, v, ok)
		}
		labels["target"] = "http"
		if hasSeries(fams, "llmprober_window_mean_seconds", labels) || hasSeries(fams, "llmprober_window_percentile_seconds", labels) {
			t.Errorf("window gauges of %s exist for the HTTP target", metric)
		}
	}
	checkAPIRoundTrips(t, r)
	if err := r.stop(); !isCanceled(err) {
		t.Fatalf("run returned %v", err)
	}
}

// checkAPIRoundTrips checks the JSON API: the realtime target's window has
// both round-trip summaries and record values, the HTTP target's has none.
func checkAPIRoundTrips(t *testing.T, r *running) {
	t.Helper()
	var doc struct {
		Summaries map[string]struct {
			Successful struct {
				Count int      `json:"count"`
				Mean  *float64 `json:"mean"`
			} `json:"successful"`
		} `json:"summaries"`
		Records struct {
			Requests []struct {
				Values map[string]*float64 `json:"values"`
			} `json:"requests"`
		} `json:"records"`
	}
	for _, target := range []string{"ws", "http"} {
		code, body := r.get(t, "/api/v1/targets/"+target+"/windows/1m?records=true")
		if code != http.StatusOK {
			t.Fatalf("API for %s answered %d: %s", target, code, body)
		}
		doc.Summaries, doc.Records.Requests = nil, nil
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		for _, metric := range []string{"time_to_last_round_trip", "average_round_trip_time"} {
			sum, ok := doc.Summaries[metric]
			switch {
			case target == "http" && ok:
				t.Errorf("http: summary %s present", metric)
			case target == "ws" && (!ok || sum.Successful.Count < 3 || sum.Successful.Mean == nil || *sum.Successful.Mean < 0.05):
				t.Errorf("ws: summary %s %+v (present %v), want count >= 3 and mean >= 0.05", metric, sum, ok)
			}
			for _, rec := range doc.Records.Requests {
				if _, has := rec.Values[metric]; has != (target == "ws") {
					t.Errorf("%s: record value %s present %v", target, metric, has)
				}
			}
		}
		if _, ok := doc.Summaries["time_to_first_token"]; !ok {
			t.Errorf("%s: no TTFT summary", target)
		}
	}
}

// hasSeries reports whether family name has a series whose labels match want.
func hasSeries(fams map[string]*dto.MetricFamily, name string, want map[string]string) bool {
	for _, m := range fams[name].GetMetric() {
		if labelsMatch(m, want) {
			return true
		}
	}
	return false
}

// gauge returns the value of the gauge series of family name matching want.
func gauge(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	for _, m := range fams[name].GetMetric() {
		if labelsMatch(m, want) {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// TestDemoConfigIsValid checks the embedded demo's configuration, with its
// realtime target.
func TestDemoConfigIsValid(t *testing.T) {
	cfg := demoConfig("http://127.0.0.1:1/v1")
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if rt := cfg.Targets[3]; rt.Backend != "openai_websocket" || rt.API != "realtime" || rt.Realtime.Path != "/v1/realtime" {
		t.Errorf("demo realtime target: backend %q api %q path %q", rt.Backend, rt.API, rt.Realtime.Path)
	}
}
