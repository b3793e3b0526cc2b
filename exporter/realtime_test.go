package exporter

import (
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// gamma is a realtime WebSocket target (streaming transcription).
var gamma = Target{Name: "gamma", Model: "voxtral", API: "realtime", Stream: true, Provider: "openai",
	ServerAddress: "10.0.0.2", ServerPort: 8000}

// gammaOK is a successful realtime request: audio packets sent at 6.0, 6.1
// and 6.2 s, tokens received at 6.3, 6.4 and 6.5 s. Time to last round
// trip 6.5 − 6.2 = 0.3; average RTT mean(6.3, 6.4, 6.5) − mean(6.0, 6.1,
// 6.2) = 0.3; TTFT 6.3 − 5.99 = 0.31; duration 6.5 − 5.99 = 0.51; 30
// tokens in, 3 out.
func gammaOK() *probe.Record {
	return &probe.Record{
		Target: "gamma", Seq: 0, API: "realtime", Stream: true,
		RequestStart: at(5990), FirstChunk: at(6300), FirstToken: at(6300), FirstOutputToken: at(6300),
		LastToken: at(6500), End: at(6500), ChunkGaps: chunks(6300, 6400, 6500, 6500),
		Sent: ats(6000, 6100, 6200), Received: ats(6300, 6400, 6500),
		PromptTokens: 30, PromptTokensFrom: probe.TokensFromUsage,
		OutputTokens: 3, OutputTokensFrom: probe.TokensFromUsage, Iterations: 3,
		Outcome: probe.Successful, HTTPStatus: 101,
	}
}

// TestRoundTripHistograms checks the two WebSocket histograms of a
// realtime target, and that HTTP targets have no series of them.
func TestRoundTripHistograms(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta, gamma)
	feedFixtures(o)
	o.Started("gamma")
	o.Finished(gammaOK())
	mfs := gather(t, m)
	for _, name := range []string{"llmprober_time_to_last_round_trip_seconds", "llmprober_average_round_trip_time_seconds"} {
		s := findMetric(mfs, name, map[string]string{"target": "gamma"})
		if s == nil {
			t.Fatalf("%s{target=gamma} missing", name)
		}
		h := s.GetHistogram()
		if h.GetSampleCount() != 1 || h.GetSampleSum() != 0.3 || bucketCount(h, 0.25) != 0 || bucketCount(h, 0.3) != 1 {
			t.Errorf("%s: count %d sum %v, le=0.25 %d, le=0.3 %d; want 1, 0.3, 0, 1", name,
				h.GetSampleCount(), h.GetSampleSum(), bucketCount(h, 0.25), bucketCount(h, 0.3))
		}
		for _, other := range []string{"alpha", "beta"} {
			if findMetric(mfs, name, map[string]string{"target": other}) != nil {
				t.Errorf("%s has a series for the HTTP target %s", name, other)
			}
		}
	}
	s := findMetric(mfs, "gen_ai_client_operation_duration_seconds",
		map[string]string{"target": "gamma", "gen_ai_operation_name": "generate_content"})
	if s == nil || s.GetHistogram().GetSampleSum() != (510*time.Millisecond).Seconds() {
		t.Errorf("gamma's operation duration: %v, want one sample of 0.51 under generate_content", s)
	}
}

// TestNegativeRoundTrips checks that round-trip values below zero (the
// audio ended in silence: one token at 6.05 s answered the first packet,
// the others went unanswered) keep their sign in the sum and land in the
// le="0" bucket. Time to last round trip 6.05 − 6.2 = −0.15; average RTT
// 6.05 − mean(6.0, 6.1, 6.2) = −0.05.
func TestNegativeRoundTrips(t *testing.T) {
	m, o := newTestMetrics(t, gamma)
	rec := gammaOK()
	rec.FirstChunk, rec.FirstToken, rec.FirstOutputToken, rec.LastToken = at(6050), at(6050), at(6050), at(6050)
	rec.ChunkGaps, rec.Received, rec.OutputTokens = chunks(6050), ats(6050), 1
	o.Started("gamma")
	o.Finished(rec)
	mfs := gather(t, m)
	for name, want := range map[string]float64{
		"llmprober_time_to_last_round_trip_seconds": -0.15,
		"llmprober_average_round_trip_time_seconds": -0.05,
	} {
		s := findMetric(mfs, name, map[string]string{"target": "gamma"})
		if s == nil {
			t.Fatalf("%s{target=gamma} missing", name)
		}
		h := s.GetHistogram()
		if math.Abs(h.GetSampleSum()-want) > 1e-9 || bucketCount(h, 0) != 1 || bucketCount(h, 0.005) != 1 {
			t.Errorf("%s: sum %v, le=0 %d, le=0.005 %d; want %v, 1, 1", name,
				h.GetSampleSum(), bucketCount(h, 0), bucketCount(h, 0.005), want)
		}
	}
}

// TestRoundTripWindowsAPIAndLanding checks the windows of a realtime target
// and an HTTP one through the JSON API and the landing page: the realtime
// target's 1m window has both round-trip summaries (one request, 0.3 s)
// and record values; the HTTP target's has neither, nor the landing
// columns.
func TestRoundTripWindowsAPIAndLanding(t *testing.T) {
	m, o := newTestMetrics(t, alpha, gamma)
	clk := fakeAt(t0)
	stores := []*window.Store{newWindowStore(t, clk, "alpha", window.Settings{}), newWindowStore(t, clk, "gamma", window.Settings{})}
	stores[0].Started("alpha")
	stores[0].Finished(streamed("alpha", 0, -1, 1000, 1100, 1200, 1300, 10, 2))
	stores[1].Started("gamma")
	stores[1].Finished(gammaOK())
	clk.Set(at(10000))
	w := newTestWindows(t, m, o, stores...)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	for _, target := range []string{"alpha", "gamma"} {
		var doc struct {
			Summaries map[string]jsonStatuses[jsonSummary] `json:"summaries"`
			Records   struct {
				Requests []struct {
					Values map[string]*float64 `json:"values"`
				} `json:"requests"`
			} `json:"records"`
		}
		if code := getJSON(t, c, base+"/api/v1/targets/"+target+"/windows/1m?records=true", &doc); code != http.StatusOK {
			t.Fatalf("%s: status %d", target, code)
		}
		for _, metric := range []string{"time_to_last_round_trip", "average_round_trip_time"} {
			sum, ok := doc.Summaries[metric]
			if target == "alpha" {
				if ok || len(doc.Records.Requests) != 1 || doc.Records.Requests[0].Values[metric] != nil {
					t.Errorf("alpha: %s present in the summaries (%v) or records", metric, ok)
				}
				continue
			}
			if !ok || sum.Successful.Count != 1 || sum.Successful.Mean == nil || *sum.Successful.Mean != 0.3 ||
				len(doc.Records.Requests) != 1 || doc.Records.Requests[0].Values[metric] == nil || *doc.Records.Requests[0].Values[metric] != 0.3 {
				t.Errorf("gamma: %s summary %+v (present %v), records %+v; want one value of 0.3", metric, sum.Successful, ok, doc.Records.Requests)
			}
		}
	}
	for _, tt := range w.landing().Targets {
		has := slices.Contains(tt.Columns, "Avg RTT mean")
		if has != (tt.Name == "gamma") {
			t.Errorf("%s: landing columns %v", tt.Name, tt.Columns)
		}
		if tt.Name == "gamma" && !strings.HasPrefix(tt.Rows[0].Cells[len(tt.Rows[0].Cells)-3], "300") {
			t.Errorf("gamma: last round trip mean shown as %q, want 300 ms", tt.Rows[0].Cells[len(tt.Rows[0].Cells)-3])
		}
	}
}
