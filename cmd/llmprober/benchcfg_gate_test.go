package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
	"github.com/llmprober/llmprober/slo"
)

// TestBenchGateExitCodes runs the sim (TTFT 5 ms, no faults) under
// objective sets built for each verdict, at 0.95 (z² = 3.8415):
//
//	met: 40 of 40 under latency ≤ 10 s against 0.5, lower bound 40/43.84 = 0.912;
//	breached: 0 of 20 under TTFT ≤ 1 ms against 0.5, upper bound 3.84/23.84 = 0.161;
//	inconclusive: 10 of 10 against 0.9, lower bound 10/13.84 = 0.722 (exit 3,
//	0 with --gate-inconclusive pass, 1 with fail).
func TestBenchGateExitCodes(t *testing.T) {
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 5 * time.Millisecond}, ITL: sim.Latency{Mean: time.Millisecond},
		OutputTokens: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	tests := []struct {
		name, objective, requests string
		extra                     []string
		code                      int
		gate                      string
	}{
		{"met", "{name: lenient, latency: 10s, attainment: 0.5, period: 7d}", "40", nil, 0, "gate: met (lenient met)"},
		{"breached", "{name: strict, ttft: 1ms, attainment: 0.5, period: 7d}", "20", nil, 1, "gate: breached (strict breached)"},
		{"inconclusive", "{name: few, latency: 10s, attainment: 0.9, period: 7d}", "10", nil, 3, "gate: inconclusive (few inconclusive)"},
		{"inconclusive passes", "{name: few, latency: 10s, attainment: 0.9, period: 7d}", "10",
			[]string{"--gate-inconclusive", "pass"}, 0, "gate: met (few inconclusive)"},
		{"inconclusive fails", "{name: few, latency: 10s, attainment: 0.9, period: 7d}", "10",
			[]string{"--gate-inconclusive", "fail"}, 1, "gate: breached (few inconclusive)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeFile(t, "c.yml", simTargetConfig(s, "{rate: 200, max_concurrency: 8}", tt.objective))
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"--config", cfg, "--max-requests", tt.requests, "--gate", "--output", out}, tt.extra...)
			code, stdout, stderr := runBenchConfig(context.Background(), t, args...)
			if code != tt.code || !strings.Contains(stdout, tt.gate) {
				t.Fatalf("exit %d, want %d with %q:\n%s%s", code, tt.code, tt.gate, stdout, stderr)
			}
			b := readBenchReport(t, out).Benchmarks[0]
			if want := strings.Fields(tt.gate)[1]; b.Gate == nil || *b.Gate != want {
				t.Errorf("report's gate %v, want %s", b.Gate, want)
			}
			o := b.SLO[0]
			if v := slo.Judge(o.Conforming, o.Evaluated, o.Target, 0.95).String(); o.Verdict != v {
				t.Errorf("verdict %s of %d/%d, want %s", o.Verdict, o.Conforming, o.Evaluated, v)
			}
		})
	}
}

// TestBenchGateNeedsObjectives: --gate without objective sets, or
// --gate-inconclusive without --gate, is bad input.
func TestBenchGateNeedsObjectives(t *testing.T) {
	cfg := writeFile(t, "c.yml", "targets:\n  - {name: a, base_url: http://127.0.0.1:1/v1, model: m}\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gate"}, "--gate: target a has no objective sets to judge"},
		{[]string{"--gate-inconclusive", "pass"}, "--gate-inconclusive needs --gate"},
		{[]string{"--gate", "--gate-inconclusive", "maybe"}, "--gate-inconclusive maybe: want pass or fail"},
	} {
		code, _, stderr := runBenchConfig(context.Background(), t, append([]string{"--config", cfg, "--max-requests", "1"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr lacks %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}
