package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// notReadyTarget serves a target whose readiness check (/health) answers
// 503 after its first ready answers 200, and whose other paths go to a
// sim. first is closed at the first 503, third at the third request that
// is not a readiness check; probes counts those requests.
type notReadyTarget struct {
	url          string
	first, third chan struct{}
	probes       atomic.Int64
}

// startNotReady starts a notReadyTarget on loopback.
func startNotReady(t *testing.T, ready int) *notReadyTarget {
	t.Helper()
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: time.Millisecond}, ITL: sim.Latency{Mean: time.Millisecond}, OutputTokens: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	u, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	n := &notReadyTarget{first: make(chan struct{}), third: make(chan struct{})}
	var checks atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health" {
			if n.probes.Add(1) == 3 {
				close(n.third)
			}
			proxy.ServeHTTP(w, r)
			return
		}
		c := checks.Add(1)
		if c <= int64(ready) {
			return
		}
		if c == int64(ready)+1 {
			close(n.first)
		}
		http.Error(w, "loading", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	n.url = srv.URL
	return n
}

// config is a configuration of the target with the given startup_timeout.
func (n *notReadyTarget) config(t *testing.T, startup string) string {
	return writeFile(t, "c.yml", fmt.Sprintf(`targets:
  - name: slow
    base_url: %s/v1
    model: sim-model
    readiness: {path: /health, interval: 20ms, startup_timeout: %s}
    workload: {prompt_tokens: 4, output_tokens: 4}
    schedule: {strategy: synchronous}
`, n.url, startup))
}

// oldReports writes a previous JSON, CSV and HTML report into a new
// directory and returns their paths and contents.
func oldReports(t *testing.T) (dir string, files map[string]string) {
	t.Helper()
	dir = t.TempDir()
	files = map[string]string{}
	for _, name := range []string{"r.json", "r.csv", "r.html"} {
		p := filepath.Join(dir, name)
		files[p] = "previous " + name + " report\n"
		if err := os.WriteFile(p, []byte(files[p]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, files
}

// reportFlags are the flags writing the reports of dir.
func reportFlags(dir string) []string {
	return []string{"--output", filepath.Join(dir, "r.json"), "--csv", filepath.Join(dir, "r.csv"), "--html", filepath.Join(dir, "r.html")}
}

// checkReportsIntact fails unless dir holds exactly files, byte for byte.
func checkReportsIntact(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only the %d previous reports", names, len(files))
	}
	for p, want := range files {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want the previous %q", p, b, err, want)
		}
	}
}

// TestFaultMatrixBenchNeverReady: bench ends a target that never passes
// its readiness check after its startup_timeout (300 ms), and a Ctrl-C
// during the wait (startup_timeout 1h) at once: exit 1 with an error
// saying so, no request sent, and the previous reports at the paths left
// byte for byte, with no other file beside them.
func TestFaultMatrixBenchNeverReady(t *testing.T) {
	for _, tc := range []struct {
		name, startup, want string
		interrupt           bool
	}{
		{"startup_timeout", "300ms", "target slow did not pass its readiness check (/health every 20ms) within its startup_timeout 300ms: " +
			"no request sent; no report written", false},
		{"interrupted while waiting", "1h", "benchmark interrupted before target slow became ready: no request sent; no report written", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := startNotReady(t, 0)
			dir, files := oldReports(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.interrupt {
				go func() { <-n.first; cancel() }()
			}
			done := make(chan struct{})
			var code int
			var stderr string
			go func() {
				defer close(done)
				code, _, stderr = runBenchConfig(ctx, t, append([]string{"--config", n.config(t, tc.startup), "--max-requests", "5"},
					reportFlags(dir)...)...)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("bench still waiting after 20 s")
			}
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want 1 and %q:\n%s", code, tc.want, stderr)
			}
			if p := n.probes.Load(); p != 0 {
				t.Errorf("%d requests sent to a target that was never ready", p)
			}
			checkReportsIntact(t, dir, files)
		})
	}
}

// TestFaultMatrixBenchSweepInterruptedWaiting: a Ctrl-C while the second
// benchmark of a sweep waits for its target writes the report of the
// first one (exit 1, saying so), replacing the previous report whole.
func TestFaultMatrixBenchSweepInterruptedWaiting(t *testing.T) {
	n := startNotReady(t, 1)
	dir, _ := oldReports(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-n.first; cancel() }()
	code, _, stderr := runBenchConfig(ctx, t, append([]string{"--config", n.config(t, "1h"), "--max-requests", "5",
		"--profile", "sweep"}, reportFlags(dir)...)...)
	want := "benchmark interrupted while the next benchmark waited for its target: the report holds the 1 benchmark(s) that ran"
	if code != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 1 and %q:\n%s", code, want, stderr)
	}
	doc := readBenchReport(t, filepath.Join(dir, "r.json"))
	if b := doc.Benchmarks[0]; b.Profile != profileSweep || b.StopReason != benchStopRequests || b.Interrupted ||
		b.Window.Requests["all"] != 5 {
		t.Errorf("benchmark of profile %q stopped by %q (interrupted %v) with %v requests; want the sweep's first, 5 requests",
			b.Profile, b.StopReason, b.Interrupted, b.Window.Requests)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d files in the report directory, want the 3 reports", len(entries))
	}
}

// TestFaultMatrixBenchSignalWhileWaiting: the bench process, sent SIGINT
// (then, in a second case, SIGKILL) while its target is not ready, ends
// at once and leaves the previous reports at its paths byte for byte.
func TestFaultMatrixBenchSignalWhileWaiting(t *testing.T) {
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			n := startNotReady(t, 0)
			dir, files := oldReports(t)
			cmd := exec.Command(bin, append([]string{"bench", "--config", n.config(t, "1h"), "--max-requests", "5"}, reportFlags(dir)...)...)
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			<-n.first
			_ = cmd.Process.Signal(sig)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done: // the status is checked below
			case <-time.After(10 * time.Second):
				t.Fatalf("still running 10 s after %v", sig)
			}
			if sig == syscall.SIGINT && (cmd.ProcessState.ExitCode() != 1 || !strings.Contains(out.String(), "no report written")) {
				t.Errorf("after SIGINT: %v, want exit 1 and no report written:\n%s", cmd.ProcessState, out.String())
			}
			if sig == syscall.SIGKILL {
				// A process killed leaves at most its temporary files.
				removeTemporary(t, dir)
			}
			checkReportsIntact(t, dir, files)
		})
	}
}

// removeTemporary removes the temporary report files a killed bench left.
func removeTemporary(t *testing.T, dir string) {
	t.Helper()
	tmp, err := filepath.Glob(filepath.Join(dir, ".r.*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tmp {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBenchCPUProfileFile: --cpu-profile replaces an existing file whole
// with the profile (gzip-compressed pprof) once the run is over, leaving
// no temporary file; a path in a missing directory is bad input (exit 2)
// naming the path, before any request.
func TestBenchCPUProfileFile(t *testing.T) {
	s, err := sim.Start(sim.Config{OutputTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir, files := oldReports(t)
	path := filepath.Join(dir, "r.json")
	bench := func(profile string) (int, string) {
		var stdout, stderr strings.Builder
		err := Run(context.Background(), []string{"bench", "--target-url", s.URL() + "/v1", "--model", sim.DefaultModel,
			"--rate", "20", "--duration", "100ms", "--cpu-profile", profile}, &stdout, &stderr, nil)
		if err != nil {
			stderr.WriteString(err.Error())
		}
		return exitCode(err), stderr.String()
	}
	missing := filepath.Join(dir, "no", "cpu.pprof")
	want := "could not create CPU profile " + missing + ": could not create a temporary file beside it: no such file or directory"
	if code, stderr := bench(missing); code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 2 and %q:\n%s", code, want, stderr)
	}
	checkReportsIntact(t, dir, files)
	if code, stderr := bench(path); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("profile of %d bytes (%v), want a gzip-compressed pprof", len(b), err)
	}
	files[path] = string(b)
	checkReportsIntact(t, dir, files)
}

// TestFaultMatrixBenchInterruptedReplacesReports: a Ctrl-C mid-run
// replaces the previous JSON, CSV and HTML reports whole with those of
// what was measured (the JSON marked interrupted), leaving no temporary
// file beside them.
func TestFaultMatrixBenchInterruptedReplacesReports(t *testing.T) {
	n := startNotReady(t, 1<<30)
	dir, files := oldReports(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-n.third; cancel() }()
	code, _, stderr := runBenchConfig(ctx, t, append([]string{"--config", n.config(t, "1h"), "--max-duration", "1h"}, reportFlags(dir)...)...)
	if code != 1 || !strings.Contains(stderr, "benchmark interrupted: the partial report is marked interrupted") {
		t.Errorf("exit %d, want 1 and an interrupted benchmark:\n%s", code, stderr)
	}
	if b := readBenchReport(t, filepath.Join(dir, "r.json")); !b.Benchmarks[0].Interrupted || b.Benchmarks[0].Window.Requests["all"] < 1 {
		t.Errorf("interrupted %v with %v requests; want an interrupted report of the requests that ran",
			b.Benchmarks[0].Interrupted, b.Benchmarks[0].Window.Requests)
	}
	for p, old := range files {
		if b, err := os.ReadFile(p); err != nil || string(b) == old || len(b) == 0 {
			t.Errorf("%s: %d bytes (%v), want the new report", p, len(b), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("%d files in the report directory, want the 3 reports", len(entries))
	}
}
