package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// llamaServer returns the base URL of the llama-server that CI starts
// (LLMPROBER_LLAMA_URL, e.g. http://127.0.0.1:18080). Without one the test is
// skipped, unless LLMPROBER_REQUIRE_INTEGRATION=1 makes that a failure.
func llamaServer(t *testing.T) string {
	t.Helper()
	u := os.Getenv("LLMPROBER_LLAMA_URL")
	if u == "" {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("LLMPROBER_REQUIRE_INTEGRATION=1 but LLMPROBER_LLAMA_URL is not set")
		}
		t.Skip("no llama-server: set LLMPROBER_LLAMA_URL (see .ci/run)")
	}
	resp, err := http.Get(u + "/health")
	if err != nil {
		t.Fatalf("llama-server at %s is not reachable: %v", u, err)
	}
	resp.Body.Close()
	return u
}

// forcedOutput is the output length every integration request forces.
const forcedOutput = 24

// TestIntegrationLlamaServer probes a real llama.cpp server for a bounded
// time with streamed chat, streamed completions and non-streamed chat, and
// checks what /metrics reports.
func TestIntegrationLlamaServer(t *testing.T) {
	base := llamaServer(t)
	targets := []struct{ name, api, stream string }{
		{"llama-chat", "chat", "true"},
		{"llama-completions", "completions", "true"},
		{"llama-chat-unary", "chat", "false"},
	}
	var b strings.Builder
	b.WriteString("targets:\n")
	for _, tg := range targets {
		fmt.Fprintf(&b, `  - name: %s
    base_url: %s/v1
    model: random-llama
    api: %s
    stream: %s
    timeout: 20s
    readiness: {path: /health}
    workload: {prompt_tokens: 32, output_tokens: %d, ignore_eos: true}
    schedule: {rate: 2, max_concurrency: 4, max_queue: 8}
`, tg.name, base, tg.api, tg.stream, forcedOutput)
	}
	cfg := writeFile(t, "llama.yml", b.String())
	r := startRun(t, []string{"run", "--config", cfg, "--listen-address", "127.0.0.1:0"}, nil)

	eventually(t, 20*time.Second, "/-/ready", func() bool { c, _ := r.get(t, "/-/ready"); return c == http.StatusOK })
	// At 2 requests/s per target, 30 finished requests per target take about
	// 15 s; the deadline leaves room for a busy machine and keeps the probing
	// under a minute.
	eventually(t, 50*time.Second, "30 finished requests per target", func() bool {
		fams, _ := r.scrape(t)
		for _, tg := range targets {
			if counter(fams, "llmprober_requests_total", map[string]string{"target": tg.name}) < 30 {
				return false
			}
		}
		return true
	})
	fams, text := r.scrape(t)
	for _, tg := range targets {
		checkTargetMetrics(t, fams, tg.name, tg.stream == "true")
	}
	checkTokenUsage(t, fams)
	promtoolCheckMetrics(t, text)
	if err := r.stop(); !isCanceled(err) {
		t.Fatalf("llmprober returned %v; stderr:\n%s", err, r.stderr.String())
	}
}

// checkTargetMetrics asserts a target's success ratio and plausible timings.
func checkTargetMetrics(t *testing.T, fams map[string]*dto.MetricFamily, name string, stream bool) {
	t.Helper()
	sel := map[string]string{"target": name}
	ok := counter(fams, "llmprober_requests_total", map[string]string{"target": name, "outcome": "successful"})
	all := counter(fams, "llmprober_requests_total", sel)
	if ok/all < 0.9 {
		t.Errorf("%s: %v of %v requests successful, want at least 90%%", name, ok, all)
	}
	if !stream {
		if n, _ := histogram(fams, "llmprober_time_to_first_token_seconds", sel); n != 0 {
			t.Errorf("%s: non-streamed target has %d TTFT samples, want none (TTFT is undefined)", name, n)
		}
		return
	}
	// The tiny model answers in milliseconds when the machine is idle, and in
	// seconds when its two cores are shared with the tests and the server's
	// own queue: every mean must be positive and below the request timeout, a
	// bound that a hang or a unit error (milliseconds read as seconds) breaks.
	for _, c := range []struct {
		metric string
		max    float64
	}{
		{"llmprober_time_to_first_token_seconds", 15},
		{"llmprober_time_to_first_output_token_seconds", 15},
		{"llmprober_inter_token_latency_seconds", 1},
		{"llmprober_time_per_output_token_seconds", 1},
	} {
		n, sum := histogram(fams, c.metric, sel)
		if n == 0 || n > uint64(ok) {
			t.Errorf("%s: %s has %d samples, want 1..%v", name, c.metric, n, ok)
			continue
		}
		if mean := sum / float64(n); !(mean > 0 && mean < c.max) {
			t.Errorf("%s: %s mean %v s, want in (0, %v)", name, c.metric, mean, c.max)
		}
	}
}

// checkTokenUsage asserts that every successful request produced exactly the
// forced number of output tokens (the server ignores EOS and caps at max_tokens).
func checkTokenUsage(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	out := map[string]string{"gen_ai_token_type": "output"}
	n, sum := histogram(fams, "gen_ai_client_token_usage", out)
	if n == 0 || sum != float64(n)*forcedOutput {
		t.Errorf("output token usage: %d samples summing to %v, want %d × %d = %d", n, sum, n, forcedOutput, int(n)*forcedOutput)
	}
	if d, _ := histogram(fams, "gen_ai_client_operation_duration_seconds", nil); d == 0 {
		t.Error("gen_ai_client_operation_duration_seconds has no samples")
	}
}

// promtoolCheckMetrics runs `promtool check metrics` on the scrape: it must report nothing.
func promtoolCheckMetrics(t *testing.T, text string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("promtool not found (Debian package prometheus)")
		}
		t.Log("promtool not found; metrics lint skipped")
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
