package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/stats"
)

// benchReportDoc is the part of the JSON report the tests read.
type benchReportDoc struct {
	Schema     string `json:"schema"`
	Benchmarks []struct {
		Profile string `json:"profile"`
		Config  struct {
			Confidence  *float64 `json:"confidence"`
			MaxRequests *int     `json:"max_requests"`
		} `json:"config"`
		StopReason  string  `json:"stop_reason"`
		Interrupted bool    `json:"interrupted"`
		MeasureFrom *string `json:"measure_start"`
		Window      struct {
			Concurrency       float64                                `json:"concurrency"`
			LengthSeconds     float64                                `json:"length_seconds"`
			Requests          map[string]int64                       `json:"requests"`
			RequestsPerSecond map[string]float64                     `json:"requests_per_second"`
			Summaries         map[string]map[string]*benchSummaryDoc `json:"summaries"`
			Records           struct {
				Sampled  bool             `json:"sampled"`
				Requests []benchRecordDoc `json:"requests"`
			} `json:"records"`
		} `json:"window"`
		RateDistributions *struct {
			IntervalSeconds float64 `json:"interval_seconds"`
			Intervals       int     `json:"intervals"`
			Requests        struct {
				Mean   float64   `json:"mean"`
				Values []float64 `json:"values"`
			} `json:"requests_per_second"`
			Concurrency struct {
				Mean   float64   `json:"mean"`
				Values []float64 `json:"values"`
			} `json:"concurrency"`
		} `json:"rate_distributions"`
		SLO []struct {
			Objective         string         `json:"objective"`
			Target            float64        `json:"target_attainment"`
			Evaluated         int64          `json:"evaluated"`
			Conforming        int64          `json:"conforming"`
			Attainment        *float64       `json:"attainment"`
			CI                *benchInterval `json:"attainment_ci"`
			Verdict           string         `json:"verdict"`
			RequestsToResolve *int64         `json:"requests_to_resolve"`
			Goodput           *float64       `json:"goodput_requests_per_second"`
		} `json:"slo"`
		Gate *string `json:"gate"`
	} `json:"benchmarks"`
}

// benchSummaryDoc is one summary of the report.
type benchSummaryDoc struct {
	Count       int64    `json:"count"`
	Mean        *float64 `json:"mean"`
	Variance    *float64 `json:"variance"`
	Min         *float64 `json:"min"`
	Max         *float64 `json:"max"`
	Percentiles map[string]struct {
		Value *float64 `json:"value"`
	} `json:"percentiles"`
}

// benchRecordDoc is one record of the report.
type benchRecordDoc struct {
	Outcome      string              `json:"outcome"`
	OutputTokens *int64              `json:"output_tokens"`
	Values       map[string]*float64 `json:"values"`
	Included     []string            `json:"included"`
}

// runBenchConfig runs "llmprober bench" with args under ctx and returns
// its exit code and output.
func runBenchConfig(ctx context.Context, t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(ctx, append([]string{"bench"}, args...), &out, &errOut, nil)
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return exitCode(err), out.String(), errOut.String()
}

// readBenchReport decodes the JSON report at path.
func readBenchReport(t *testing.T, path string) benchReportDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc benchReportDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, b)
	}
	if doc.Schema != benchSchema || len(doc.Benchmarks) != 1 {
		t.Fatalf("schema %q, %d benchmarks; want %s, 1", doc.Schema, len(doc.Benchmarks), benchSchema)
	}
	return doc
}

// simTargetConfig is a configuration of one streamed constant-rate target
// of sim s with the objective set given.
func simTargetConfig(s *sim.Server, schedule, objective string) string {
	return fmt.Sprintf(`targets:
  - name: simt
    base_url: %s/v1
    model: sim-model
    stream: true
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: %s
    objectives:
      - %s
`, s.URL(), schedule, objective)
}

// TestBenchConfigReportRecomputed runs 60 requests against a sim that
// fails a fifth of them and recomputes the report's figures from its own
// records: counts, the latency and ITL summaries (exact ranks, population
// and token-weighted variance), the request rate, the attainment, its
// Wilson interval, the verdict and the requests that would resolve it.
func TestBenchConfigReportRecomputed(t *testing.T) {
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 5 * time.Millisecond, Jitter: 4 * time.Millisecond},
		ITL: sim.Latency{Mean: time.Millisecond, Jitter: time.Millisecond}, OutputTokens: 8, Seed: 7,
		Faults: map[sim.Fault]float64{sim.FaultHTTP500: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{rate: 100, max_concurrency: 8}",
		"{name: default, ttft: 8ms, attainment: 0.9, period: 7d}"))
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--max-requests", "60", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b := readBenchReport(t, out).Benchmarks[0]
	recs := b.Window.Records.Requests
	if b.StopReason != benchStopRequests || b.Interrupted || b.Profile != "single" || b.Config.MaxRequests == nil ||
		*b.Config.MaxRequests != 60 || b.Config.Confidence == nil || *b.Config.Confidence != 0.95 || b.MeasureFrom == nil {
		t.Errorf("stop %q interrupted %v profile %q config %+v; want max_requests, false, single, 60 requests at 0.95",
			b.StopReason, b.Interrupted, b.Profile, b.Config)
	}
	// Every request ran to its end: none is incomplete, all are records.
	by := map[string]int64{}
	for _, r := range recs {
		by[r.Outcome]++
	}
	if len(recs) != 60 || b.Window.Records.Sampled || by["incomplete"] != 0 || b.Window.Requests["successful"] != by["successful"] ||
		b.Window.Requests["errored"] != by["errored"] || b.Window.Requests["all"] != 60 || by["errored"] == 0 {
		t.Fatalf("%d records by outcome %v, requests %v; want 60 exact records, some errored, none incomplete", len(recs), by, b.Window.Requests)
	}
	checkRecomputedSummaries(t, b.Window.Summaries, recs)
	if rate := float64(by["successful"]) / b.Window.LengthSeconds; math.Abs(b.Window.RequestsPerSecond["successful"]-rate) > 1e-9*rate {
		t.Errorf("successful requests/s %v, want %d ÷ %v s = %v", b.Window.RequestsPerSecond["successful"], by["successful"], b.Window.LengthSeconds, rate)
	}
	// Rate distributions: ⌈length ÷ 1 s⌉ intervals; the requests per
	// interval sum to all 60, so the series averages to 60 ÷ length, and
	// the concurrency series to the window's.
	rd := b.RateDistributions
	if rd == nil || rd.Intervals != int(math.Ceil(b.Window.LengthSeconds)) ||
		math.Abs(rd.IntervalSeconds*float64(rd.Intervals)-b.Window.LengthSeconds) > 1e-9 || len(rd.Requests.Values) != rd.Intervals {
		t.Fatalf("rate distributions %+v; want ⌈%v⌉ intervals", rd, b.Window.LengthSeconds)
	}
	sum, csum := 0.0, 0.0
	for i, v := range rd.Requests.Values {
		sum += v * rd.IntervalSeconds
		csum += rd.Concurrency.Values[i]
	}
	if math.Abs(sum-60) > 1e-9 || math.Abs(rd.Requests.Mean-60/b.Window.LengthSeconds) > 1e-9 ||
		math.Abs(csum/float64(rd.Intervals)-b.Window.Concurrency) > 1e-9 || math.Abs(rd.Concurrency.Mean-b.Window.Concurrency) > 1e-9 {
		t.Errorf("requests %v over the intervals (mean %v/s), concurrency mean %v; want 60, 60 ÷ %v s, %v",
			sum, rd.Requests.Mean, rd.Concurrency.Mean, b.Window.LengthSeconds, b.Window.Concurrency)
	}
	// Conforming: successful with TTFT ≤ 8 ms; errored requests are
	// evaluated and non-conforming.
	var conforming int64
	for _, r := range recs {
		if r.Outcome == "successful" && r.Values["time_to_first_token"] != nil && *r.Values["time_to_first_token"] <= 0.008 {
			conforming++
		}
	}
	o := b.SLO[0]
	lo, hi, _ := stats.Wilson(conforming, 60, 0.95)
	verdict := slo.Judge(conforming, 60, 0.9, 0.95)
	if o.Objective != "default" || o.Evaluated != 60 || o.Conforming != conforming || o.Attainment == nil ||
		*o.Attainment != float64(conforming)/60 || o.CI == nil || o.CI.Lower != lo || o.CI.Upper != hi || o.Verdict != verdict.String() {
		t.Errorf("slo %+v; want 60 evaluated, %d conforming, Wilson [%v, %v], %s", o, conforming, lo, hi, verdict)
	}
	if n, ok := slo.RequestsToResolve(conforming, 60, 0.9, 0.95); verdict == slo.Inconclusive && ok &&
		(o.RequestsToResolve == nil || *o.RequestsToResolve != n) {
		t.Errorf("requests to resolve %v, want %d", o.RequestsToResolve, n)
	}
	for _, want := range []string{"stopped: max_requests", "request latency", "TTFT", "ITL", "TPOT",
		fmt.Sprintf("requests: %d successful, %d errored, 0 incomplete", by["successful"], by["errored"]),
		fmt.Sprintf("SLO default (target 90%%): %d of 60 conforming", conforming)} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console report lacks %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if len([]rune(line)) > 120 {
			t.Errorf("console line of %d columns (at most 120): %s", len([]rune(line)), line)
		}
	}
}

// checkRecomputedSummaries recomputes the successful request latency
// summary (mean, population variance, p50 and p99 at rank ⌈q·n⌉) and the
// token-weighted ITL mean and variance from the records.
func checkRecomputedSummaries(t *testing.T, sums map[string]map[string]*benchSummaryDoc, recs []benchRecordDoc) {
	t.Helper()
	var lat, itl, w []float64
	for _, r := range recs {
		if r.Outcome != "successful" {
			continue
		}
		if slices.Contains(r.Included, "request_latency") {
			lat = append(lat, *r.Values["request_latency"])
		}
		if slices.Contains(r.Included, "inter_token_latency") {
			itl = append(itl, *r.Values["inter_token_latency"])
			w = append(w, float64(*r.OutputTokens-1))
		}
	}
	slices.Sort(lat)
	n := float64(len(lat))
	mean, sq := 0.0, 0.0
	for _, v := range lat {
		mean += v / n
	}
	for _, v := range lat {
		sq += (v - mean) * (v - mean) / n
	}
	got := sums["request_latency"]["successful"]
	p50, p99 := lat[int(math.Ceil(0.5*n))-1], lat[int(math.Ceil(0.99*n))-1]
	if got.Count != int64(len(lat)) || math.Abs(*got.Mean-mean) > 1e-12 || math.Abs(*got.Variance-sq) > 1e-12 ||
		*got.Percentiles["p50"].Value != p50 || *got.Percentiles["p99"].Value != p99 || *got.Min != lat[0] {
		t.Errorf("latency %+v; want %d values, mean %v, variance %v, p50 %v, p99 %v", got, len(lat), mean, sq, p50, p99)
	}
	var sw, swv float64
	for i, v := range itl {
		sw, swv = sw+w[i], swv+w[i]*v
	}
	wmean, wsq := swv/sw, 0.0
	for i, v := range itl {
		wsq += w[i] * (v - wmean) * (v - wmean) / sw
	}
	gi := sums["inter_token_latency"]["successful"]
	if gi.Count != int64(sw) || math.Abs(*gi.Mean-wmean) > 1e-12 || gi.Variance == nil || math.Abs(*gi.Variance-wsq) > 1e-12 {
		t.Errorf("ITL %+v; want weight %v, mean %v, variance %v", gi, sw, wmean, wsq)
	}
}

// TestBenchConfigBadInput: each mistake is exit 2 with a message naming
// it, and no request reaches the server.
func TestBenchConfigBadInput(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	one := writeFile(t, "one.yml", fmt.Sprintf("targets:\n  - {name: a, base_url: %s/v1, model: m}\n", srv.URL))
	two := writeFile(t, "two.yml", fmt.Sprintf("targets:\n  - {name: a, base_url: %s/v1, model: m}\n  - {name: b, base_url: %s/v1, model: m}\n",
		srv.URL, srv.URL))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown target", []string{"--config", one, "--target", "zz", "--max-requests", "1"}, "--target zz: no such target in the configuration (a)"},
		{"target not named", []string{"--config", two, "--max-requests", "1"}, "--target: the configuration has 2 targets (a, b); name one"},
		{"no limit", []string{"--config", one}, "--max-duration or --max-requests is required"},
		{"share without duration", []string{"--config", one, "--max-requests", "5", "--warmup", "10%"}, "--warmup 10%: a share must be in"},
		{"warmup as long as the run", []string{"--config", one, "--max-duration", "1s", "--warmup", "1s"}, "--warmup 1s: want a duration in [0, 1s)"},
		{"bad confidence", []string{"--config", one, "--max-requests", "1", "--confidence", "95"}, "--confidence 95: want a level in (0, 1)"},
		{"unwritable output", []string{"--config", one, "--max-requests", "1", "--output", filepath.Join(t.TempDir(), "no", "r.json")},
			"could not create --output report "},
		{"output is a directory", []string{"--config", one, "--max-requests", "1", "--output", t.TempDir()},
			"it exists and is not a regular file (mode d"},
		{"missing file", []string{"--config", filepath.Join(t.TempDir(), "none.yml"), "--max-requests", "1"}, "could not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBenchConfig(context.Background(), t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr lacks %q:\n%s%s", code, tt.want, stdout, stderr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// TestBenchConfigDurationAndInterrupt: a duration limit cancels the
// requests in flight (incomplete, out of the SLO's evaluated ones), and an
// interrupt writes the partial benchmark marked interrupted, exit 1.
func TestBenchConfigDurationAndInterrupt(t *testing.T) {
	// Every request takes about 300 ms, so some are in flight at the limit.
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 100 * time.Millisecond}, ITL: sim.Latency{Mean: 25 * time.Millisecond},
		OutputTokens: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{rate: 20, max_concurrency: 16}",
		"{name: default, latency: 10s, attainment: 0.5, period: 7d}"))
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--max-duration", "1s", "--warmup", "20%", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b := readBenchReport(t, out).Benchmarks[0]
	inc, fin := b.Window.Requests["incomplete"], b.Window.Requests["successful"]+b.Window.Requests["errored"]
	if b.StopReason != benchStopDuration || inc == 0 || b.SLO[0].Evaluated != fin || b.Window.LengthSeconds < 0.79 || b.Window.LengthSeconds > 1.3 {
		t.Errorf("stop %q, %d incomplete, %d evaluated of %d finished, length %v s; want max_duration, some incomplete, all finished evaluated, 0.8 s (and the time to cancel)",
			b.StopReason, inc, b.SLO[0].Evaluated, fin, b.Window.LengthSeconds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	code, _, stderr = runBenchConfig(ctx, t, "--config", cfg, "--max-duration", "30s", "--output", out)
	b = readBenchReport(t, out).Benchmarks[0]
	if code != 1 || !strings.Contains(stderr, "benchmark interrupted") || !b.Interrupted || b.StopReason != benchStopInterrupted ||
		b.Window.Requests["all"] == 0 {
		t.Errorf("exit %d, interrupted %v, stop %q, %d requests; want 1, true, interrupted, some requests\n%s",
			code, b.Interrupted, b.StopReason, b.Window.Requests["all"], stderr)
	}
}

// TestBenchConfigErrorLimits: a sim failing every request stops at
// --max-errors 5; one failing half of them stops at --max-error-rate 0.2
// once 50 requests have finished (then more than 10 of the last 50 have
// errored with overwhelming likelihood), well before --max-duration.
func TestBenchConfigErrorLimits(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults float64
		flags  []string
		stop   string
	}{
		{"max errors", 1, []string{"--max-errors", "5"}, benchStopErrors},
		{"max error rate", 0.5, []string{"--max-error-rate", "0.2"}, benchStopErrorRate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: time.Millisecond}, OutputTokens: 4, Seed: 3,
				Faults: map[sim.Fault]float64{sim.FaultHTTP500: tc.faults}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.Close)
			cfg := writeFile(t, "c.yml", simTargetConfig(s, "{rate: 400, max_concurrency: 4}",
				"{name: default, latency: 10s, attainment: 0.5, period: 7d}"))
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--config", cfg, "--max-duration", "30s", "--output", out}, tc.flags...)
			start := time.Now()
			code, stdout, stderr := runBenchConfig(context.Background(), t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			b := readBenchReport(t, out).Benchmarks[0]
			errored := b.Window.Requests["errored"]
			if b.StopReason != tc.stop || errored < 5 || time.Since(start) > 20*time.Second {
				t.Errorf("stop %q after %v with %d errored; want %s early", b.StopReason, time.Since(start), errored, tc.stop)
			}
			if tc.stop == benchStopErrorRate && b.Window.Requests["successful"]+errored < benchErrorRateSample {
				t.Errorf("stopped after %d finished requests, before the sample of %d", b.Window.Requests["successful"]+errored, benchErrorRateSample)
			}
		})
	}
	cfg := writeFile(t, "bad.yml", "targets:\n  - {name: a, base_url: http://127.0.0.1:1/v1, model: m}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-requests", "3", "--max-errors", "4"}, "--max-errors must be within [1, --max-requests], got 4"},
		{[]string{"--max-requests", "3", "--max-error-rate", "1.5"}, "--max-error-rate must be within (0, 1], got 1.5"},
	} {
		code, _, stderr := runBenchConfig(context.Background(), t, append([]string{"--config", cfg}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}
