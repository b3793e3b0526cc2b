package exporter

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// Before the measure start a window has no figures: its bounds, length,
// counts and token totals are null in the API and none of its gauges is
// exported, while in_flight counts the request running in the warmup.
func TestWindowBeforeMeasureStart(t *testing.T) {
	tests := []struct {
		name  string
		ready bool // the target passed its start-up gate at t0 (10 s warmup)
	}{
		{"at the start-up gate", false},
		{"during the warmup", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, o := newTestMetrics(t, alpha)
			clk := fakeAt(t0)
			st, err := window.NewStore("alpha", window.Settings{Windows: []time.Duration{time.Minute},
				Confidence: 0.95, Warmup: 10 * time.Second, Clock: clk, CacheTTL: -1,
				Objectives: []slo.Objective{{Name: "fast", Attainment: 0.99, Period: time.Hour,
					Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: time.Second}}}}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.ready {
				st.State("alpha", probe.StateReady, 0)
			}
			clk.Set(at(2000))
			st.Started("alpha")
			clk.Set(at(5000))
			w := newTestWindows(t, m, o, st)
			fams := windowFamilies(gather(t, m))
			if len(fams) != 0 {
				t.Errorf("%d window gauge families before the measure start, want none: %v", len(fams), keys(fams))
			}
			s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
			w.Register(s)
			url, c := startServer(t, s)
			var doc map[string]json.RawMessage
			if code := getJSON(t, c, url+"/api/v1/targets/alpha/windows/1m", &doc); code != 200 {
				t.Fatalf("status %d", code)
			}
			for _, k := range []string{"start", "end", "length_seconds", "requests", "output_tokens", "prompt_tokens", "concurrency"} {
				if got := string(doc[k]); got != "null" {
					t.Errorf("%s = %s, want null", k, got)
				}
			}
			var objectives map[string]map[string]json.RawMessage
			if err := json.Unmarshal(doc["objectives"], &objectives); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"evaluated", "conforming", "verdict"} {
				if got := string(objectives["fast"][k]); got != "null" {
					t.Errorf("objectives.fast.%s = %s, want null", k, got)
				}
			}
			if got := string(doc["measuring"]); got != "false" {
				t.Errorf("measuring = %s, want false", got)
			}
			// One request started at 2 s and is still running at 5 s.
			if got := string(doc["in_flight"]); got != "1" {
				t.Errorf("in_flight = %s, want 1", got)
			}
		})
	}
}

// keys lists a map's keys.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
