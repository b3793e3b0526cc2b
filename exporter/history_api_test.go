package exporter

import (
	"net/http"
	"slices"
	"testing"

	"github.com/llmprober/llmprober/slo/window"
)

// jsonHistory is the history document as a client decodes it.
type jsonHistory struct {
	Target           string                    `json:"target"`
	IntervalSeconds  float64                   `json:"interval_seconds"`
	RetentionSeconds float64                   `json:"retention_seconds"`
	Times            []float64                 `json:"times"`
	Requests         map[string][]uint32       `json:"requests"`
	Errors           map[string][]uint32       `json:"errors"`
	Probes           map[string]any            `json:"probes"`
	OutputTokens     []uint32                  `json:"output_tokens"`
	Concurrency      []float64                 `json:"concurrency"`
	Quantities       map[string]map[string]any `json:"quantities"`
	Approximate      []bool                    `json:"approximate"`
	Objectives       map[string]map[string]any `json:"objectives"`
}

// TestHistoryAPI checks the history of apiFixture, whose records all
// arrive at t0 = 03:04:05 (the store clock's time then) and whose last
// request is in flight from t0 + 110 s to the read at t0 + 120 s: 12 closed
// points of 10 s aligned to 10 s of wall-clock time, from t0 − 5 s; point
// 0 has 4 successful, 1 errored (http_5xx) and 1 incomplete (canceled)
// requests, 9 + 10 + 8 + 5 + 3 = 35 output tokens, TTFTs 0.1, 1.5, 0.25,
// 0.1 s (p50 0.1 at rank 2, p90 and p99 1.5 at rank 4) and dispatch
// delays 0, 0, 0.05, 0.1 s (p50 0, p99 0.1); point 11, [t0 + 105 s,
// t0 + 115 s), a concurrency of 5 s / 10 s = 0.5.
func TestHistoryAPI(t *testing.T) {
	base, c := apiFixture(t)
	var h jsonHistory
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/history", &h); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if h.Target != "alpha" || h.IntervalSeconds != 10 || h.RetentionSeconds != 21600 || len(h.Times) != 12 {
		t.Fatalf("target %q interval %v retention %v, %d points", h.Target, h.IntervalSeconds, h.RetentionSeconds, len(h.Times))
	}
	if h.Times[0] != float64(t0.Unix()-5) || h.Times[11] != float64(t0.Unix()+105) {
		t.Errorf("times %v … %v, want t0 − 5 s … t0 + 105 s", h.Times[0], h.Times[11])
	}
	first := func(name string, col []uint32, want uint32) {
		t.Helper()
		if len(col) != 12 || col[0] != want {
			t.Errorf("%s = %v, want %d first", name, col, want)
		}
	}
	first("successful", h.Requests["successful"], 4)
	first("errored", h.Requests["errored"], 1)
	first("incomplete", h.Requests["incomplete"], 1)
	first("http_5xx", h.Errors["http_5xx"], 1)
	first("canceled", h.Errors["canceled"], 1)
	first("output tokens", h.OutputTokens, 35)
	if h.Concurrency[11] != 0.5 || h.Concurrency[0] != 0 {
		t.Errorf("concurrency %v, want 0 first and 0.5 last", h.Concurrency)
	}
	ttft := h.Quantities["time_to_first_token"]
	if p50 := ttft["p50"].([]any); float32(p50[0].(float64)) != 0.1 || p50[1] != nil {
		t.Errorf("TTFT p50 = %v, want 0.1 then null", p50)
	}
	if p90 := ttft["p90"].([]any); float32(p90[0].(float64)) != 1.5 {
		t.Errorf("TTFT p90 = %v, want 1.5", p90[0])
	}
	if dd := h.Quantities["dispatch_delay"]["p99"].([]any); float32(dd[0].(float64)) != 0.1 {
		t.Errorf("dispatch delay p99 = %v, want 0.1", dd[0])
	}
	if ttft["unit"] != "seconds" || len(h.Objectives) != 0 || len(h.Approximate) != 12 {
		t.Errorf("unit %v, objectives %v, approximate %v", ttft["unit"], h.Objectives, h.Approximate)
	}
	var short jsonHistory
	getJSON(t, c, base+"/api/v1/targets/alpha/history?span=30s", &short)
	if !slices.Equal(short.Times, h.Times[9:]) {
		t.Errorf("span=30s: times %v, want the last 3", short.Times)
	}
	for path, want := range map[string]int{
		"/api/v1/targets/nope/history":           http.StatusNotFound,
		"/api/v1/targets/alpha/history?span=-1s": http.StatusBadRequest,
		"/api/v1/targets/alpha/history?span=x":   http.StatusBadRequest,
		"/api/v1/targets/nope/recent":            http.StatusNotFound,
	} {
		var e map[string]string
		if code := getJSON(t, c, base+path, &e); code != want || e["error"] == "" {
			t.Errorf("%s: status %d %v, want %d with an error", path, code, e, want)
		}
	}
}

// TestRecentAPI checks the recent requests of the fixture story, newest
// first, with the error text as recorded and durations in seconds; and the
// history of a store that has seen no event: no point, empty series.
func TestRecentAPI(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o)
	st := newWindowStore(t, fakeAt(t0), "alpha", window.Settings{})
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	var r struct {
		Target string `json:"target"`
		Recent []struct {
			Seq       uint64   `json:"seq"`
			Outcome   string   `json:"outcome"`
			ErrorType *string  `json:"error_type"`
			Error     *string  `json:"error"`
			Status    *int     `json:"http_status"`
			TTFT      *float64 `json:"time_to_first_token"`
			Latency   *float64 `json:"request_latency"`
		} `json:"recent"`
	}
	var empty jsonHistory
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/history", &empty); code != http.StatusOK ||
		len(empty.Times) != 0 || len(empty.Requests) != 3 || empty.Requests["successful"] == nil {
		t.Errorf("a target without events: status %d, %+v", code, empty)
	}
	getJSON(t, c, base+"/api/v1/targets/alpha/recent", &r)
	if len(r.Recent) < 3 {
		t.Fatalf("recent = %+v", r)
	}
	ok, bad := r.Recent[len(r.Recent)-1], r.Recent[len(r.Recent)-2]
	if ok.Seq != 0 || ok.TTFT == nil || !near(*ok.TTFT, 0.25) || ok.Error != nil || *ok.Status != 200 {
		t.Errorf("successful request: %+v", ok)
	}
	if bad.Seq != 1 || bad.Error == nil || *bad.Error != `upstream said <b>boom</b> & "more"` || *bad.ErrorType != "http_5xx" ||
		!near(*bad.Latency, 0.06) {
		t.Errorf("errored request: %+v", bad)
	}
}
