package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// benchSpanDoc is the part of a report the warmup and cooldown tests read.
type benchSpanDoc struct {
	Benchmarks []struct {
		Config struct {
			WarmupSeconds    float64 `json:"warmup_seconds"`
			WarmupRequests   *int    `json:"warmup_requests"`
			CooldownSeconds  float64 `json:"cooldown_seconds"`
			CooldownRequests *int    `json:"cooldown_requests"`
		} `json:"config"`
		RunEnd      string `json:"run_end"`
		MeasureFrom string `json:"measure_start"`
		MeasureTo   string `json:"measure_end"`
		Window      struct {
			Requests  map[string]int64                       `json:"requests"`
			Summaries map[string]map[string]*benchSummaryDoc `json:"summaries"`
			Records   struct {
				Requests []struct {
					Seq          uint64   `json:"seq"`
					RequestStart string   `json:"request_start"`
					FirstToken   string   `json:"first_token"`
					End          string   `json:"end"`
					Included     []string `json:"included"`
				} `json:"requests"`
			} `json:"records"`
		} `json:"window"`
	} `json:"benchmarks"`
}

// runSpanBench runs a synchronous benchmark of 10 requests against a sim
// with the given extra flags and returns its report and console output.
func runSpanBench(t *testing.T, flags ...string) (benchSpanDoc, string) {
	t.Helper()
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 20 * time.Millisecond}, ITL: sim.Latency{Mean: 5 * time.Millisecond},
		OutputTokens: 4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{strategy: synchronous}", "{name: default, latency: 10s, attainment: 0.5, period: 7d}"))
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"--config", cfg, "--max-requests", "10", "--output", out}, flags...)
	code, stdout, stderr := runBenchConfig(context.Background(), t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc benchSpanDoc
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Benchmarks) != 1 {
		t.Fatalf("report: %v, %d benchmarks\n%s", err, len(doc.Benchmarks), b)
	}
	return doc, stdout
}

// TestBenchConfigWarmupCooldownCounts: 10 synchronous requests (one at a
// time, each starting after the previous ended) with --warmup 2 and
// --cooldown 3. The window runs from the start of the 3rd request to the
// start of the 8th (the 3rd from the last): requests 3 to 8 overlap it
// (the 8th at its start instant), 6 requests; TTFT counts for all 6 (each
// request start..first token overlaps it); ITL and TPOT for 3 to 7 only
// (the 8th's first token came after the window), 5 × 7 ITL tokens and
// 5 × 8 TPOT tokens (8 output tokens each); no dispatch delay
// (synchronous).
func TestBenchConfigWarmupCooldownCounts(t *testing.T) {
	doc, stdout := runSpanBench(t, "--warmup", "2", "--cooldown", "3")
	b := doc.Benchmarks[0]
	if c := b.Config; c.WarmupRequests == nil || *c.WarmupRequests != 2 || c.CooldownRequests == nil || *c.CooldownRequests != 3 ||
		c.WarmupSeconds != 0 || c.CooldownSeconds != 0 {
		t.Errorf("config %+v, want warmup_requests 2, cooldown_requests 3, both seconds 0", c)
	}
	recs := b.Window.Records.Requests
	var seqs []uint64
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
	}
	if len(recs) != 6 || b.Window.Requests["successful"] != 6 {
		t.Fatalf("records %v, %d successful; want the 3rd to 8th requests", seqs, b.Window.Requests["successful"])
	}
	if b.MeasureFrom != recs[0].RequestStart || b.MeasureTo != recs[5].RequestStart {
		t.Errorf("window [%s, %s], want the starts of the 3rd and 8th requests [%s, %s]",
			b.MeasureFrom, b.MeasureTo, recs[0].RequestStart, recs[5].RequestStart)
	}
	sum := b.Window.Summaries
	for _, c := range []struct {
		metric string
		want   int64
	}{
		{"request_latency", 6}, {"time_to_first_token", 6}, {"inter_token_latency", 35}, {"time_per_output_token", 40}, {"dispatch_delay", 0},
	} {
		if got := sum[c.metric]["successful"].Count; got != c.want {
			t.Errorf("%s count %d, want %d", c.metric, got, c.want)
		}
	}
	if last := recs[5].Included; slices.Contains(last, "inter_token_latency") || !slices.Contains(last, "time_to_first_token") {
		t.Errorf("8th request included in %v, want TTFT without ITL", last)
	}
	if !strings.Contains(stdout, "after a warmup of 2 requests, before a cooldown of 3 requests") {
		t.Errorf("console lacks the warmup and cooldown:\n%s", stdout)
	}
}

// TestBenchConfigCooldownDuration: --cooldown 100ms ends the window 100 ms
// before the run's end; every request that started by then counts, its
// ITL when its first token came by then, and none that started after.
func TestBenchConfigCooldownDuration(t *testing.T) {
	doc, _ := runSpanBench(t, "--cooldown", "100ms")
	b := doc.Benchmarks[0]
	parse := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("instant %q: %v", s, err)
		}
		return v
	}
	end, to := parse(b.RunEnd), parse(b.MeasureTo)
	// The window's bounds are wall-clock instants measured on the
	// monotonic clock from the measure start, the run's end a wall-clock
	// reading: they may differ by a few µs.
	if d := end.Sub(to); d < 100*time.Millisecond-time.Millisecond || d > 100*time.Millisecond+time.Millisecond || b.Config.CooldownSeconds != 0.1 {
		t.Errorf("measure_end %v before the run's end, cooldown_seconds %v; want 100ms, 0.1", d, b.Config.CooldownSeconds)
	}
	recs := b.Window.Records.Requests
	itl := 0
	for _, r := range recs {
		if parse(r.RequestStart).After(to) {
			t.Errorf("request %d started after measure_end but counts", r.Seq)
		}
		if want := !parse(r.FirstToken).After(to); slices.Contains(r.Included, "inter_token_latency") != want {
			t.Errorf("request %d: ITL included %v, want %v", r.Seq, !want, want)
		}
		if !parse(r.FirstToken).After(to) {
			itl += 7 // 8 output tokens
		}
	}
	// Requests take about 40 ms: the 100 ms cooldown leaves out 1 to 3.
	if n := len(recs); n < 7 || n > 9 || int64(n) != b.Window.Requests["successful"] {
		t.Errorf("%d records, %d successful; want 7 to 9 of 10", n, b.Window.Requests["successful"])
	}
	if got := b.Window.Summaries["inter_token_latency"]["successful"].Count; got != int64(itl) {
		t.Errorf("ITL weight %d, want %d", got, itl)
	}
}

// TestBenchConfigBoundsBadInput: a warmup and cooldown that leave nothing
// are refused before any request is sent.
func TestBenchConfigBoundsBadInput(t *testing.T) {
	cfg := writeFile(t, "bad.yml", "targets:\n  - {name: a, base_url: http://127.0.0.1:1/v1, model: m}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-requests", "10", "--warmup", "4", "--cooldown", "6"}, "--warmup and --cooldown: 4 and 6 requests leave nothing of --max-requests 10"},
		{[]string{"--max-duration", "2s", "--warmup", "1s", "--cooldown", "50%"}, "--warmup and --cooldown: 1s and 1s leave nothing of the run (2s)"},
		{[]string{"--max-requests", "10", "--cooldown", "5%"}, "--cooldown 5%: a share must be in"},
		{[]string{"--max-requests", "10", "--cooldown", "-3"}, "--cooldown -3: a request count must be within"},
		{[]string{"--max-requests", "10", "--cooldown", "soon"}, "--cooldown soon: want a duration in"},
	} {
		code, _, stderr := runBenchConfig(context.Background(), t, append([]string{"--config", cfg}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}
