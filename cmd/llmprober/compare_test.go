package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// benchAgainst runs a synchronous benchmark of 60 requests against a sim
// with the given mean TTFT (jitter half of it, seeded, so two sims of
// one configuration draw the same latencies in the same order) and returns
// its report's path.
func benchAgainst(t *testing.T, ttft time.Duration) string {
	t.Helper()
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: ttft, Jitter: ttft / 2}, ITL: sim.Latency{Mean: time.Millisecond},
		OutputTokens: 4, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{strategy: synchronous}", "{name: default, ttft: 1s, attainment: 0.5, period: 7d}"))
	out := filepath.Join(t.TempDir(), "r.json")
	if code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--max-requests", "60", "--output", out); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	return out
}

// runCompare runs compare with args.
func runCompare(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := Run(context.Background(), append([]string{"compare"}, args...), &out, &errOut, nil)
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return exitCode(err), out.String() + errOut.String()
}

// TestCompare: two runs of one sim configuration differ nowhere beyond
// their intervals; a sim whose TTFT doubled (20 → 40 ms) is a significant
// regression of TTFT, and --fail-on-regression exits 1 on it.
func TestCompare(t *testing.T) {
	base, same, slow := benchAgainst(t, 20*time.Millisecond), benchAgainst(t, 20*time.Millisecond), benchAgainst(t, 40*time.Millisecond)
	code, out := runCompare(t, "--fail-on-regression", base, same)
	if code != 0 || strings.Contains(out, "regression") || !strings.Contains(out, "time_to_first_token mean") {
		t.Errorf("same configuration: exit %d, want 0 and no regression:\n%s", code, out)
	}
	code, out = runCompare(t, "--fail-on-regression", base, slow)
	if code != 1 || !strings.Contains(out, "significant regression") {
		t.Errorf("TTFT doubled: exit %d, want 1 and a regression:\n%s", code, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "time_to_first_token mean") && !strings.HasSuffix(line, "higher: regression") {
			t.Errorf("TTFT mean not flagged: %s", line)
		}
	}
	if code, out := runCompare(t, base, slow); code != 0 || !strings.Contains(out, "higher: regression") {
		t.Errorf("without --fail-on-regression: exit %d, want 0 with the regression shown:\n%s", code, out)
	}
	bad := writeFile(t, "bad.json", `{"schema": "other"}`)
	if code, out := runCompare(t, base, bad); code != 2 || !strings.Contains(out, `schema "other", want llmprober-bench/v1`) {
		t.Errorf("a file that is not a report: exit %d:\n%s", code, out)
	}
	if code, _ := runCompare(t, base); code != 2 {
		t.Errorf("one file: exit %d, want 2", code)
	}
}

// TestCompareCall: intervals that overlap, even by a hair, are no call;
// disjoint ones are higher or lower; a missing interval is no interval.
func TestCompareCall(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	iv := func(lo, hi float64) *benchInterval { return &benchInterval{Lower: lo, Upper: hi} }
	for _, tc := range []struct {
		f    compareFigure
		want string
		bad  bool
	}{
		{compareFigure{base: v(1), new: v(2), baseCI: iv(0.9, 1.1), newCI: iv(1.1, 2.1), regressionCounts: true}, callNone, false},
		{compareFigure{base: v(1), new: v(2), baseCI: iv(0.9, 1.1), newCI: iv(1.1001, 2.1), regressionCounts: true}, callHigher, true},
		{compareFigure{base: v(1), new: v(0.5), baseCI: iv(0.9, 1.1), newCI: iv(0.4, 0.6), regressionCounts: true}, callLower, false},
		{compareFigure{base: v(0.99), new: v(0.9), baseCI: iv(0.98, 0.995), newCI: iv(0.85, 0.95), higherIsBetter: true, regressionCounts: true}, callLower, true},
		{compareFigure{base: v(1), new: v(5), newCI: iv(4, 6), regressionCounts: true}, callNoCI, false},
	} {
		if got := tc.f.call(); got != tc.want || tc.f.regressed() != tc.bad {
			t.Errorf("%+v: call %q regressed %v; want %q %v", tc.f, got, tc.f.regressed(), tc.want, tc.bad)
		}
	}
}
