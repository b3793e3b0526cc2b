package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// TestSearchGoodput drives the search with hand-made capacities: met up
// to a load, not met above it.
func TestSearchGoodput(t *testing.T) {
	tests := []struct {
		name   string
		kind   string
		start  float64
		limit  float64 // highest load met
		budget int
		steps  []float64
		found  float64
	}{
		// 2, 4, 8 met; 16 not; bisect 12 met, 14 not, 13 not: 13 − 12 = 1.
		{"concurrency grows then bisects", loadConcurrency, 2, 12, 30, []float64{2, 4, 8, 16, 12, 14, 13}, 12},
		// 16 not met, 8 not, 4 met; bisect 6 met, 7 not.
		{"concurrency shrinks first", loadConcurrency, 16, 6, 30, []float64{16, 8, 4, 6, 7}, 6},
		{"concurrency 1 not met: nothing found", loadConcurrency, 1, 0, 30, []float64{1}, 0},
		// Rates: 10 met, 20 not; 15 met, 17.5 not, 16.25 met; 17.5 ≤ 1.1 × 16.25.
		{"rate bisects to 10 %", loadRate, 10, 16.5, 30, []float64{10, 20, 15, 17.5, 16.25}, 16.25},
		{"the step budget stops the search", loadConcurrency, 2, 12, 4, []float64{2, 4, 8, 16}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var steps []float64
			found, err := searchGoodput(tt.kind, tt.start, func(load float64) (bool, bool, error) {
				steps = append(steps, load)
				return load <= tt.limit, len(steps) >= tt.budget, nil
			})
			if err != nil || found != tt.found || !reflect.DeepEqual(steps, tt.steps) {
				t.Errorf("found %v after %v (%v); want %v after %v", found, steps, err, tt.found, tt.steps)
			}
		})
	}
}

func TestSweepRates(t *testing.T) {
	if got := sweepRates(10, 40, 2); !reflect.DeepEqual(got, []float64{20, 30}) {
		t.Errorf("sweepRates(10, 40, 2) = %v, want [20 30]", got)
	}
	if got := sweepRates(5, 5, 3); !reflect.DeepEqual(got, []float64{5, 5, 5}) {
		t.Errorf("sweepRates(5, 5, 3) = %v, want [5 5 5]", got)
	}
}

// TestBenchSweep runs a sweep of 2 rates against the sim: synchronous,
// throughput, then the two constant rates a third and two thirds of the
// way between the request rates the first two measured.
func TestBenchSweep(t *testing.T) {
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 5 * time.Millisecond}, ITL: sim.Latency{Mean: time.Millisecond},
		OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{rate: 5, max_concurrency: 4}", "{name: default, latency: 10s, attainment: 0.5, period: 7d}"))
	dir := t.TempDir()
	out, csvPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--profile", "sweep", "--sweep-rates", "2",
		"--max-requests", "20", "--output", out, "--csv", csvPath)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Profile    string `json:"profile"`
		Benchmarks []struct {
			Label  string `json:"label"`
			Config struct {
				Strategy string   `json:"strategy"`
				Rate     *float64 `json:"rate"`
			} `json:"config"`
			Window struct {
				RequestsPerSecond map[string]float64 `json:"requests_per_second"`
			} `json:"window"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	bs := doc.Benchmarks
	if doc.Profile != "sweep" || len(bs) != 4 || bs[0].Config.Strategy != "synchronous" || bs[1].Config.Strategy != "throughput" {
		t.Fatalf("profile %q, %d benchmarks %+v; want sweep: synchronous, throughput, 2 constant", doc.Profile, len(bs), bs)
	}
	lo, hi := bs[0].Window.RequestsPerSecond["all"], bs[1].Window.RequestsPerSecond["all"]
	for k, want := range []float64{lo + (hi-lo)/3, lo + 2*(hi-lo)/3} {
		c := bs[2+k].Config
		if c.Strategy != "constant" || c.Rate == nil || math.Abs(*c.Rate-want) > 1e-9*want {
			t.Errorf("benchmark %d: %s at %v, want constant at %v (between %v and %v)", 3+k, c.Strategy, c.Rate, want, lo, hi)
		}
	}
	csvText, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(string(csvText)), "\n"); len(rows) != 5 || !strings.Contains(rows[0], "dispatch_delay_mean") {
		t.Errorf("CSV of %d lines; want a header with the schedule columns and 4 rows", len(rows))
	}
	if !strings.Contains(stdout, "benchmark              requests/s") || !strings.Contains(stdout, "\nsynchronous ") {
		t.Errorf("no sweep table:\n%s", stdout)
	}
}

// loadedServer serves sim through a server of 2 slots: each request holds
// one for 100 ms before the sim answers it, waiting its turn when both are
// taken. Under a closed-loop concurrency of c a request takes about 113 ms
// for c ≤ 2 (the sim's 13 ms included), 163 ms for c = 3 and 213 ms for
// c = 4.
func loadedServer(t *testing.T, s *sim.Server) string {
	t.Helper()
	slots := make(chan struct{}, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			slots <- struct{}{}
			time.Sleep(100 * time.Millisecond)
			<-slots
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestBenchGoodput searches the concurrency of loadedServer under latency
// ≤ 180 ms at 0.8: 38 of 40 conforming or more (Wilson lower bound 0.835
// at 38) is met at concurrency 1 and 2 (113 ms), 4 is breached (213 ms);
// the bisection then tries 3 (163 ms, close enough to the bound for either
// verdict): steps 1, 2, 4, 3, found 3 when 3 was met, else 2.
func TestBenchGoodput(t *testing.T) {
	s := sim.New(sim.Config{TTFT: sim.Latency{Mean: 5 * time.Millisecond}, ITL: sim.Latency{Mean: time.Millisecond},
		OutputTokens: 8, Seed: 1})
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", fmt.Sprintf(`targets:
  - name: loaded
    base_url: %s/v1
    model: sim-model
    stream: true
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: {strategy: synchronous}
    objectives:
      - {name: default, latency: 180ms, attainment: 0.8, period: 7d}
`, loadedServer(t, s)))
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--profile", "goodput", "--max-requests", "40",
		"--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []json.RawMessage `json:"benchmarks"`
		Goodput    struct {
			Load  string `json:"load"`
			Steps []struct {
				Load      float64 `json:"load"`
				Benchmark int     `json:"benchmark"`
				SLO       struct {
					Verdict string   `json:"verdict"`
					Goodput *float64 `json:"goodput_requests_per_second"`
				} `json:"slo"`
			} `json:"steps"`
			Found *struct {
				Load float64 `json:"load"`
			} `json:"found"`
		} `json:"goodput"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var loads []float64
	for _, st := range doc.Goodput.Steps {
		loads = append(loads, st.Load)
	}
	g := doc.Goodput
	if g.Load != loadConcurrency || !reflect.DeepEqual(loads, []float64{1, 2, 4, 3}) || len(doc.Benchmarks) != 4 {
		t.Fatalf("search over %s: steps %v, %d benchmarks; want concurrency 1, 2, 4, 3\n%s%s", g.Load, loads, len(doc.Benchmarks), stdout, stderr)
	}
	want := 2.0
	if g.Steps[3].SLO.Verdict == "met" {
		want = 3
	}
	if g.Steps[0].SLO.Verdict != "met" || g.Steps[1].SLO.Verdict != "met" || g.Steps[2].SLO.Verdict != "breached" ||
		g.Found == nil || g.Found.Load != want {
		t.Errorf("verdicts %+v, found %+v; want met, met, breached and %v found\n%s", g.Steps, g.Found, want, stdout)
	}
	if !strings.Contains(stdout, fmt.Sprintf("found: concurrency %v: SLO default", want)) {
		t.Errorf("console lacks the load found:\n%s", stdout)
	}
}

// TestBenchProfileBadInput: a profile the target cannot run is bad input.
func TestBenchProfileBadInput(t *testing.T) {
	trace := writeFile(t, "t.jsonl", `{"timestamp": 0, "prompt_tokens": 4, "output_tokens": 4}`+"\n")
	cfg := writeFile(t, "c.yml", fmt.Sprintf(`targets:
  - name: replay
    base_url: http://127.0.0.1:1/v1
    model: m
    schedule: {strategy: trace, trace: {file: %s}}
    objectives:
      - {name: default, latency: 1s, attainment: 0.9, period: 7d}
  - name: plain
    base_url: http://127.0.0.1:1/v1
    model: m
`, trace))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "replay", "--profile", "goodput"}, "--profile goodput: target replay replays a trace"},
		{[]string{"--target", "replay", "--profile", "sweep"}, "--profile sweep: target replay replays a trace"},
		{[]string{"--target", "plain", "--profile", "goodput"}, "--profile goodput: target plain has no objective sets"},
		{[]string{"--target", "plain", "--profile", "ramp"}, "--profile ramp: want one of single, sweep, goodput"},
		{[]string{"--target", "plain", "--profile", "sweep", "--gate"}, "--gate judges one benchmark: it needs --profile single"},
	} {
		code, _, stderr := runBenchConfig(context.Background(), t, append([]string{"--config", cfg, "--max-requests", "5"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}
