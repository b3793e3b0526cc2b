package exporter

import (
	"math"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// The API's objectives of a 10 s window read at t0 + 10 s: 8 requests of
// 0.5 s with 5 output tokens conform to "fast" (latency ≤ 1 s), one of 2 s
// and one errored do not. Attainment 8/10 with Wilson interval [0.4902,
// 0.9433] at 0.95 (centre 0.7167404 ± 0.2265773); goodput 8/10 s = 0.8
// requests/s and 40/10 s = 4 tokens/s.
func TestWindowAPIObjectives(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	clk := fakeAt(t0)
	fast := slo.Objective{Name: "fast", Attainment: 0.99, Period: 24 * time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: time.Second}}}
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{10 * time.Second},
		Confidence: 0.95, Objectives: []slo.Objective{fast}})
	var recs []*probe.Record
	for i := range 8 {
		s := 1000 * i
		recs = append(recs, streamed("alpha", uint64(i), -1, s, s+100, s+400, s+500, 3, 5))
	}
	recs = append(recs, streamed("alpha", 8, -1, 8000, 8100, 9900, 10000, 3, 7),
		&probe.Record{Target: "alpha", Seq: 9, RequestStart: at(9000), End: at(9100), Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx})
	for _, r := range recs {
		st.Started("alpha")
		st.Finished(r)
	}
	clk.Set(at(10000))
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	url, c := startServer(t, s)
	var doc struct {
		Objectives map[string]struct {
			Target     float64       `json:"target_attainment"`
			Evaluated  *int64        `json:"evaluated"`
			Conforming *int64        `json:"conforming"`
			Attainment *float64      `json:"attainment"`
			CI         *jsonInterval `json:"attainment_ci"`
			Verdict    *string       `json:"verdict"`
			Goodput    *float64      `json:"goodput_requests_per_second"`
			Tokens     *float64      `json:"goodput_output_tokens_per_second"`
		} `json:"objectives"`
	}
	if code := getJSON(t, c, url+"/api/v1/targets/alpha/windows/10s", &doc); code != 200 {
		t.Fatalf("status %d", code)
	}
	f, ok := doc.Objectives["fast"]
	if !ok || f.Target != 0.99 || f.Evaluated == nil || *f.Evaluated != 10 || f.Conforming == nil || *f.Conforming != 8 {
		t.Fatalf("objectives %+v; want fast: 0.99, 10 evaluated, 8 conforming", doc.Objectives)
	}
	if f.Attainment == nil || *f.Attainment != 0.8 || f.CI == nil ||
		math.Abs(f.CI.Lower-0.4901631) > 1e-6 || math.Abs(f.CI.Upper-0.9433177) > 1e-6 {
		t.Errorf("attainment %v CI %+v; want 0.8 [0.4901631, 0.9433177]", f.Attainment, f.CI)
	}
	// The interval's upper bound 0.9433 is below the target 0.99.
	if f.Verdict == nil || *f.Verdict != "breached" {
		t.Errorf("verdict %v; want breached", f.Verdict)
	}
	if f.Goodput == nil || math.Abs(*f.Goodput-0.8) > 1e-12 || f.Tokens == nil || math.Abs(*f.Tokens-4) > 1e-12 {
		t.Errorf("goodput %v, %v; want 0.8 requests/s, 4 tokens/s", f.Goodput, f.Tokens)
	}
}
