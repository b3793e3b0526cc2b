package main

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

// apiWindowDoc is the part of a window document this test reads.
type apiWindowDoc struct {
	Window        string   `json:"window"`
	LengthSeconds float64  `json:"length_seconds"`
	Measuring     bool     `json:"measuring"`
	Confidence    *float64 `json:"confidence"`
	Requests      struct {
		Successful, All int64
	} `json:"requests"`
	RequestsPerSecond struct {
		Successful *float64 `json:"successful"`
	} `json:"requests_per_second"`
	Summaries map[string]struct {
		Successful struct {
			Count    int64    `json:"count"`
			Mean     *float64 `json:"mean"`
			Min      *float64 `json:"min"`
			Max      *float64 `json:"max"`
			Weighted bool     `json:"weighted"`
			Variance *float64 `json:"variance"`
			StdDev   *float64 `json:"std_dev"`
		} `json:"successful"`
	} `json:"summaries"`
	Records struct {
		Requests []json.RawMessage `json:"requests"`
	} `json:"records"`
	Objectives map[string]struct {
		Evaluated  *int64   `json:"evaluated"`
		Conforming *int64   `json:"conforming"`
		Attainment *float64 `json:"attainment"`
		Goodput    *float64 `json:"goodput_requests_per_second"`
		Verdict    *string  `json:"verdict"`
	} `json:"objectives"`
}

// TestRunWindows probes the simulated endpoint and reads the rolling windows
// back through the JSON API, /metrics and the landing page.
func TestRunWindows(t *testing.T) {
	s := startSim(t)
	cfg := fmt.Sprintf(`windows: [1m, 5m]
confidence: 0.9
window_gauges: {export: [percentiles, means, rates, slo], percentiles: [p50, p99]}
targets:
  - name: win
    base_url: %s/v1
    model: sim-model
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: {rate: 20, max_concurrency: 4}
    objectives:
      - {name: lenient, latency: 60s, attainment: 0.9, period: 7d}
`, s.URL())
	r := startRun(t, []string{"run", "--config", writeFile(t, "c.yml", cfg), "--listen-address", "127.0.0.1:0"}, nil)
	var w apiWindowDoc
	eventually(t, 20*time.Second, "5 successful requests in the 1m window", func() bool {
		code, body := r.get(t, "/api/v1/targets/win/windows/1m?records=true")
		if code != http.StatusOK {
			t.Fatalf("window API answered %d: %s", code, body)
		}
		w = apiWindowDoc{}
		if err := json.Unmarshal([]byte(body), &w); err != nil {
			t.Fatalf("window API: %v\n%s", err, body)
		}
		return w.Requests.Successful >= 5
	})
	if w.Window != "1m" || !w.Measuring || w.LengthSeconds <= 0 || w.LengthSeconds > 60 ||
		w.Confidence == nil || *w.Confidence != 0.9 {
		t.Errorf("window %q measuring %v length %v confidence %v; want 1m, true, (0, 60], 0.9",
			w.Window, w.Measuring, w.LengthSeconds, w.Confidence)
	}
	if int64(len(w.Records.Requests)) != w.Requests.All {
		t.Errorf("%d records for %d requests", len(w.Records.Requests), w.Requests.All)
	}
	if rate := w.RequestsPerSecond.Successful; rate == nil || *rate <= 0 || *rate > 40 {
		t.Errorf("requests per second %v, want in (0, 40] at a rate of 20", rate)
	}
	lat, ttft := w.Summaries["request_latency"].Successful, w.Summaries["time_to_first_token"].Successful
	// Every successful request has a latency; the sim streams 8 tokens after
	// a TTFT of about 5 ms, well inside the 60 s timeout.
	if lat.Count != w.Requests.Successful || lat.Mean == nil || *lat.Mean <= 0 || *lat.Max > 60 {
		t.Errorf("latency count %d mean %v max %v; want %d plausible values", lat.Count, lat.Mean, lat.Max, w.Requests.Successful)
	}
	if ttft.Count == 0 || ttft.Mean == nil || *ttft.Mean <= 0 || *ttft.Mean > *lat.Mean {
		t.Errorf("TTFT count %d mean %v; want samples below the mean latency %v", ttft.Count, ttft.Mean, *lat.Mean)
	}
	if out := w.Summaries["output_tokens"].Successful; out.Min == nil || *out.Min != 8 || *out.Max != 8 {
		t.Errorf("output tokens min %v max %v, want 8", out.Min, out.Max)
	}
	// The token-weighted summaries have a population variance and its
	// root, within Popoviciu's bound ((max − min)/2)².
	for _, m := range []string{"inter_token_latency", "time_per_output_token"} {
		w := w.Summaries[m].Successful
		half := (*w.Max - *w.Min) / 2
		if !w.Weighted || w.Variance == nil || w.StdDev == nil || *w.Variance < 0 ||
			math.Abs(*w.StdDev**w.StdDev-*w.Variance) > 1e-12 || *w.Variance > half*half*(1+1e-9) {
			t.Errorf("%s: weighted %v variance %v std_dev %v (min %v, max %v); want a weighted variance in [0, ((max − min)/2)²] and its root",
				m, w.Weighted, w.Variance, w.StdDev, w.Min, w.Max)
		}
	}
	// Every request of the window is evaluated under the 60 s latency bound
	// (none is incomplete while the run goes on), and the successful ones
	// conform: goodput = successful requests ÷ length.
	o, ok := w.Objectives["lenient"]
	if !ok || o.Evaluated == nil || o.Conforming == nil || *o.Conforming != w.Requests.Successful ||
		*o.Evaluated < *o.Conforming || o.Attainment == nil || o.Goodput == nil ||
		math.Abs(*o.Goodput-float64(*o.Conforming)/w.LengthSeconds) > 1e-9*(*o.Goodput) {
		t.Errorf("objective lenient %+v; want %d conforming, goodput = conforming ÷ %v s", o, w.Requests.Successful, w.LengthSeconds)
	}
	// With every request conforming, the Wilson lower bound at 0.9 (z =
	// 1.6448536) is n/(n + z²): 24/26.7055 = 0.8987 < 0.9 is inconclusive,
	// 25/27.7055 = 0.9024 met. The verdict turns met by 25 requests.
	eventually(t, 20*time.Second, "the 1m window's verdict met", func() bool {
		_, body := r.get(t, "/api/v1/targets/win/windows/1m")
		w = apiWindowDoc{}
		if err := json.Unmarshal([]byte(body), &w); err != nil {
			t.Fatalf("window API: %v\n%s", err, body)
		}
		o := w.Objectives["lenient"]
		if o.Verdict == nil || o.Evaluated == nil || o.Conforming == nil {
			t.Fatalf("objective lenient %+v: verdict or counts null while measuring", o)
		}
		if *o.Conforming == *o.Evaluated && (*o.Verdict == "met") != (*o.Evaluated >= 25) {
			t.Fatalf("%d of %d conforming, verdict %s; want met from 25 on, inconclusive below", *o.Conforming, *o.Evaluated, *o.Verdict)
		}
		return *o.Verdict == "met"
	})
	_, metrics := r.scrape(t)
	for _, want := range []string{
		`llmprober_window_slo_verdict{objective="lenient",target="win",verdict="met",window="1m"} 1`,
		`llmprober_window_slo_verdict{objective="lenient",target="win",verdict="breached",window="1m"} 0`,
		`llmprober_window_slo_verdict{objective="lenient",target="win",verdict="inconclusive",window="1m"} 0`,
		`llmprober_window_finished_requests{status="successful",target="win",window="1m"}`,
		`llmprober_window_percentile_seconds{metric="request_latency",percentile="p50",target="win",window="5m"}`,
		`llmprober_window_mean_seconds{metric="time_to_first_token",target="win",window="1m"}`,
		`llmprober_window_requests_per_second{status="successful",target="win",window="1m"}`,
		`llmprober_window_slo_attainment{objective="lenient",target="win",window="1m"}`,
		`llmprober_window_goodput_requests_per_second{objective="lenient",target="win",window="1m"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Families and levels left out of window_gauges are not exported.
	for _, absent := range []string{`llmprober_window_tokens_mean{`, `_ci_lower`, `percentile="p90"`} {
		if strings.Contains(metrics, absent) {
			t.Errorf("/metrics has %s, which window_gauges leaves out", absent)
		}
	}
	if code, body := r.get(t, "/api/v1/targets/nope/windows/1m"); code != http.StatusNotFound || !strings.Contains(body, `"error"`) {
		t.Errorf("unknown target: %d %s", code, body)
	}
	if _, page := r.get(t, "/targets/win"); !strings.Contains(page, "Rolling windows") || !strings.Contains(page, "<td>5m</td>") ||
		!strings.Contains(page, "of 90%: met") {
		t.Error("the target page has no window table")
	}
	if err := r.stop(); !isCanceled(err) {
		t.Fatal(err)
	}
}
