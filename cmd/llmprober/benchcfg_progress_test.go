package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// runProgressBench runs 10 synchronous requests of about 40 ms each
// against a sim, with stdout and stderr taken for terminals or not.
func runProgressBench(t *testing.T, terminal bool, flags ...string) (stdout, stderr string) {
	t.Helper()
	was := benchTerminal
	benchTerminal = func(io.Writer) bool { return terminal }
	t.Cleanup(func() { benchTerminal = was })
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 20 * time.Millisecond}, ITL: sim.Latency{Mean: 3 * time.Millisecond}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", simTargetConfig(s, "{strategy: synchronous}", "{name: default, latency: 10s, attainment: 0.5, period: 7d}"))
	code, stdout, stderr := runBenchConfig(context.Background(), t, append([]string{"--config", cfg, "--max-requests", "10"}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "requests: 10 successful, 0 errored, 0 incomplete") {
		t.Errorf("the report is missing:\n%s", stdout)
	}
	return stdout, stderr
}

// Off a terminal, and on one with --quiet, nothing but the report is
// written: no carriage return, no progress line, an empty stderr.
func TestBenchConfigNoProgress(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		flags    []string
	}{
		{"not a terminal", false, nil},
		{"quiet on a terminal", true, []string{"--quiet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr := runProgressBench(t, tc.terminal, tc.flags...)
			if stderr != "" || strings.Contains(stdout, "\r") || strings.Contains(stdout, "in flight") {
				t.Errorf("progress bytes written: stderr %q, stdout with a carriage return or progress line:\n%s", stderr, stdout)
			}
		})
	}
}

// On a terminal the progress line is drawn on stderr, as a bar of the 10
// requests with the benchmark's label and counts, and cleared at the end
// (the last bytes a carriage return after blanks); stdout has only the
// report.
func TestBenchConfigProgress(t *testing.T) {
	stdout, stderr := runProgressBench(t, true)
	if !strings.Contains(stderr, "synchronous: 0 finished (0 errored), 0 in flight") || !strings.Contains(stderr, "/10") {
		t.Errorf("stderr lacks the progress line over 10 requests:\n%q", stderr)
	}
	if !strings.HasSuffix(stderr, "\r") || strings.TrimSpace(stderr[strings.LastIndex(stderr[:len(stderr)-1], "\r"):]) != "" {
		t.Errorf("the progress line is not cleared at the end:\n%q", stderr)
	}
	if strings.Contains(stdout, "\r") || strings.Contains(stdout, "in flight") {
		t.Errorf("progress on stdout:\n%s", stdout)
	}
}
