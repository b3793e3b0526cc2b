package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/sim"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// handBenchmark is a benchmark of two successful streamed requests read
// 10 s after its measure start t0, under strategy:
//
//	A: targeted 1.0 s, start 1.0, first token 1.2, last 1.5, end 1.6; 10 prompt, 4 output tokens.
//	B: targeted 2.0 s, start 2.1, first token 2.5, last 2.7, end 3.1; 20 prompt, 3 output tokens.
//
// Latency 0.6 and 1.0 (mean 0.8, population sd 0.2, median = p50 rank 1 =
// 0.6, higher levels 1.0; mean interval 0.8 ± t(0.975, 1)·0.2 =
// 0.8 ± 12.7062047·0.2); TTFT = TTFOT 0.2 and 0.4; ITL 0.1 (weight 3) and
// 0.1 (weight 2); TPOT 0.125 (weight 4) and 0.2 (weight 3): mean 1.1/7,
// variance (4·(0.125 − 1.1/7)² + 3·(0.2 − 1.1/7)²)/7 = 0.00137755, sd
// 0.0371154; dispatch delay 0 and 0.1; scheduled latency 0.6 and 1.1;
// requests/s 2/10, output tokens/s 7/10, total (7 + 30)/10, concurrency
// (0.6 + 1.0)/10. Objective set "fast" (latency ≤ 0.8 s, target 0.5): 1 of
// 2, Wilson [0.0945, 0.9055], inconclusive.
func handBenchmark(t *testing.T, strategy string) *benchResult {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	fast := slo.Objective{Name: "fast", Attainment: 0.5, Period: time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: 800 * time.Millisecond}}}
	clk := clock.NewFake(t0)
	st, err := window.NewStore("hand", window.Settings{Windows: []time.Duration{10 * time.Second}, Confidence: 0.95,
		CacheTTL: -1, Clock: clk, Objectives: []slo.Objective{fast}})
	if err != nil {
		t.Fatal(err)
	}
	st.State("hand", probe.StateReady, 0)
	closed := !config.HasArrivalSchedule(strategy)
	for _, r := range []struct{ targeted, start, first, last, end, prompt, output int }{
		{1000, 1000, 1200, 1500, 1600, 10, 4}, {2000, 2100, 2500, 2700, 3100, 20, 3},
	} {
		rec := &probe.Record{Target: "hand", Stream: true, Outcome: probe.Successful, OutputSeen: true,
			TargetedStart: at(r.targeted), RequestStart: at(r.start), FirstToken: at(r.first), FirstOutputToken: at(r.first),
			FirstChunk: at(r.first), LastToken: at(r.last), End: at(r.end),
			PromptTokens: r.prompt, OutputTokens: r.output, Iterations: r.output,
			PromptTokensFrom: probe.TokensFromUsage, OutputTokensFrom: probe.TokensFromUsage}
		if closed {
			rec.TargetedStart = time.Time{}
		}
		clk.Set(at(r.start))
		st.Started("hand")
		clk.Set(at(r.end))
		st.Finished(rec)
	}
	stream := true
	target := config.Target{Name: "hand", Stream: &stream, Schedule: config.Schedule{Strategy: strategy, Rate: 0.5, Streams: 2}}
	if closed {
		target.Schedule.Rate = 0
	} else {
		target.Schedule.Streams = 0
	}
	plan := &benchPlan{target: target, objectives: []slo.Objective{fast}, confidence: 0.95, window: 10 * time.Second}
	return &benchResult{plan: plan, snap: st.Snapshot(at(10000), 10*time.Second), start: t0, end: at(10000), stop: benchStopRequests,
		profile: profileSingle, label: scheduleLabel(&target.Schedule)}
}

// update rewrites the golden CSV files from the current output.
var update = flag.Bool("update", false, "rewrite testdata/bench_*.csv from the current output")

// TestBenchCSVGolden compares the header and the row of the hand-built
// benchmark with testdata, for a strategy with an arrival schedule and
// one without (whose dispatch-delay and scheduled-latency columns do not
// appear).
func TestBenchCSVGolden(t *testing.T) {
	for _, strategy := range []string{config.StrategyConstant, config.StrategyConcurrent} {
		t.Run(strategy, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeBenchCSV(&b, []*benchResult{handBenchmark(t, strategy)}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "bench_"+strategy+".csv")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("CSV differs from %s:\n%s", path, b.String())
			}
			header := strings.SplitN(b.String(), "\n", 2)[0]
			if has := strings.Contains(header, "dispatch_delay"); has == (strategy == config.StrategyConcurrent) {
				t.Errorf("%s: dispatch delay columns present = %v", strategy, has)
			}
		})
	}
}

// TestBenchCSVFromSim writes the CSV of a sim run next to its JSON report:
// the row's counts and verdict are the report's.
func TestBenchCSVFromSim(t *testing.T) {
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 2 * time.Millisecond}, OutputTokens: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{strategy: concurrent, streams: 2}", "{name: default, latency: 10s, attainment: 0.5, period: 7d}"))
	dir := t.TempDir()
	out, csvPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	if code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--max-requests", "12", "--output", out, "--csv", csvPath); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows (%v); want a header and one row", len(rows), err)
	}
	row := map[string]string{}
	for i, name := range rows[0] {
		row[name] = rows[1][i]
	}
	b := readBenchReport(t, out).Benchmarks[0]
	if row["strategy"] != "concurrent" || row["requests_successful"] != "12" || row["slo_default_evaluated"] != "12" ||
		row["slo_default_verdict"] != b.SLO[0].Verdict || row["confidence"] != "0.95" || rows[0][len(rows[0])-1] != "confidence" {
		t.Errorf("row %v; want concurrent, 12 successful and evaluated, verdict %s, confidence 0.95 last", row, b.SLO[0].Verdict)
	}
	// Of 12 values only p50 can be bounded at 0.95 (p25 and p75 need 13).
	if cis := strings.Fields(row["request_latency_percentile_cis"]); len(cis) != 1 || !strings.HasPrefix(cis[0], "p50=") ||
		strings.Count(cis[0], ";") != 1 {
		t.Errorf("request_latency_percentile_cis %q; want p50=lo;hi only", row["request_latency_percentile_cis"])
	}
	if _, ok := row["dispatch_delay_mean"]; ok {
		t.Error("a concurrent benchmark has dispatch delay columns")
	}
}
