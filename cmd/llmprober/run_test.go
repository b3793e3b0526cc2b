package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// startSim starts a fast simulated endpoint for one test.
func startSim(t *testing.T) *sim.Server {
	t.Helper()
	s, err := sim.Start(sim.Config{
		TTFT: sim.Latency{Mean: 5 * time.Millisecond}, ITL: sim.Latency{Mean: time.Millisecond},
		OutputTokens: 8, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// closedPort returns a loopback address on which nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestRunClassifiesEveryFailure probes the simulated endpoint with one healthy
// target and one target per failure mode, and checks that each failure is an
// errored request of the right type in /metrics, that nothing crashes or
// hangs, and that the landing page and health endpoints answer.
func TestRunClassifiesEveryFailure(t *testing.T) {
	s := startSim(t)
	cases := []struct {
		name, fault, errType string
	}{
		{"healthy", "none", ""},
		{"http500", "http_500", "http_5xx"},
		{"http429", "http_429", "http_429"},
		{"html", "html", "protocol"},
		{"malformed", "malformed", "protocol"},
		{"truncated", "truncated", "protocol"},
		{"errorevent", "error_event", "stream_error"},
		{"stall", "stall", "timeout"},
		{"reset", "reset", "connection"},
	}
	var b strings.Builder
	b.WriteString("targets:\n")
	for _, c := range cases {
		fmt.Fprintf(&b, `  - name: %s
    base_url: %s/v1
    model: sim-model
    timeout: 2s
    headers: {X-Sim-Fault: %s}
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: {rate: 20, max_concurrency: 4}
`, c.name, s.URL(), c.fault)
	}
	fmt.Fprintf(&b, `  - name: unreachable
    base_url: http://%s/v1
    model: m
    readiness: {path: none}
    schedule: {rate: 20}
`, closedPort(t))
	r := startRun(t, []string{"run", "--config", writeFile(t, "c.yml", b.String()), "--listen-address", "127.0.0.1:0"}, nil)

	eventually(t, 20*time.Second, "/-/ready", func() bool { c, _ := r.get(t, "/-/ready"); return c == http.StatusOK })
	eventually(t, 20*time.Second, "3 finished requests per target", func() bool {
		fams, _ := r.scrape(t)
		for _, c := range append(cases, struct{ name, fault, errType string }{"unreachable", "", "connection"}) {
			if counter(fams, "llmprober_requests_total", map[string]string{"target": c.name}) < 3 {
				return false
			}
		}
		return true
	})
	fams, _ := r.scrape(t)
	for _, c := range append(cases, struct{ name, fault, errType string }{"unreachable", "", "connection"}) {
		all := counter(fams, "llmprober_requests_total", map[string]string{"target": c.name})
		want := map[string]string{"target": c.name, "outcome": "successful"}
		if c.errType != "" {
			want = map[string]string{"target": c.name, "outcome": "errored", "error_type": c.errType}
		}
		if got := counter(fams, "llmprober_requests_total", want); got != all {
			t.Errorf("%s: %v of %v requests are %v, want all", c.name, got, all, want)
		}
	}
	if code, body := r.get(t, "/"); code != http.StatusOK || !strings.Contains(body, "errorevent") || !strings.Contains(body, "/metrics") {
		t.Errorf("landing page: %d, lists targets and links: %v", code, strings.Contains(body, "errorevent"))
	}
	if code, _ := r.get(t, "/-/healthy"); code != http.StatusOK {
		t.Errorf("/-/healthy answered %d", code)
	}
	if err := r.stop(); !isCanceled(err) {
		t.Fatalf("run returned %v", err)
	}
}

// TestRunFromEnvironmentOnly runs a single target configured only by
// environment variables, as a Kubernetes sidecar would, with an API key that
// must never be shown.
func TestRunFromEnvironmentOnly(t *testing.T) {
	s := startSim(t)
	const key = "sk-test-secret-0123456789"
	env := map[string]string{
		"LLMPROBER_TARGET_URL":     s.URL() + "/v1",
		"LLMPROBER_TARGET_NAME":    "sidecar",
		"LLMPROBER_MODEL":          "sim-model",
		"LLMPROBER_RATE":           "20",
		"LLMPROBER_OUTPUT_TOKENS":  "5",
		"LLMPROBER_API_KEY":        key,
		"LLMPROBER_LISTEN_ADDRESS": "127.0.0.1:0",
	}
	t.Setenv("LLMPROBER_API_KEY", key) // keys are read from the process environment
	r := startRun(t, []string{"run"}, env)
	eventually(t, 20*time.Second, "5 successful requests", func() bool {
		fams, _ := r.scrape(t)
		return counter(fams, "llmprober_requests_total", map[string]string{"target": "sidecar", "outcome": "successful"}) >= 5
	})
	fams, _ := r.scrape(t)
	// Streaming is on by default: TTFT samples exist; 5 output tokens each.
	if n, _ := histogram(fams, "llmprober_time_to_first_token_seconds", map[string]string{"target": "sidecar"}); n == 0 {
		t.Error("no TTFT samples: the env-only target did not stream")
	}
	n, sum := histogram(fams, "gen_ai_client_token_usage", map[string]string{"gen_ai_token_type": "output"})
	if sum != float64(n)*5 {
		t.Errorf("output tokens: %d samples sum %v, want 5 each", n, sum)
	}
	_, page := r.get(t, "/")
	_, targetPage := r.get(t, "/targets/sidecar")
	_, recent := r.get(t, "/api/v1/targets/sidecar/recent")
	_, history := r.get(t, "/api/v1/targets/sidecar/history")
	_, metrics := r.get(t, "/metrics")
	for where, text := range map[string]string{"overview": page, "target page": targetPage, "recent API": recent, "history API": history, "metrics": metrics, "stdout": r.stdout.String(), "stderr": r.stderr.String()} {
		if strings.Contains(text, key) {
			t.Errorf("the API key appears in the %s", where)
		}
	}
	if err := r.stop(); !isCanceled(err) {
		t.Fatal(err)
	}
}

func TestCheckCommand(t *testing.T) {
	good := writeFile(t, "good.yml", "targets:\n  - {name: a, base_url: 'http://127.0.0.1:1/v1', model: m}\n")
	bad := writeFile(t, "bad.yml", "targets:\n  - name: a\n    base_url: ftp://x\n    model: m\n    schedule: {rate: -1}\n  - {name: a, model: m}\n")
	cases := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		want     []string
	}{
		{"valid", []string{"check", "--config", good}, nil, 0, []string{"configuration is valid: 1 target(s): a"}},
		{"every problem listed", []string{"check", "--config", bad}, nil, 2,
			[]string{"bad.yml:3", "targets[0].base_url", "bad.yml:5", "targets[0].schedule.rate", "targets[1].name", "targets[1].base_url"}},
		{"missing file", []string{"check", "--config", "/nonexistent/x.yml"}, nil, 2, []string{"/nonexistent/x.yml"}},
		{"no config at all", []string{"check"}, nil, 2, []string{"LLMPROBER_TARGET_URL"}},
		{"misspelt variable", []string{"check"}, map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:1/v1", "LLMPROBER_MODEL": "m",
			"LLMPROBER_OUTPUT_TOKEN": "8"}, 2, []string{"LLMPROBER_OUTPUT_TOKEN: unknown variable (did you mean LLMPROBER_OUTPUT_TOKENS?)"}},
		{"misspelt variable beside a file", []string{"check", "--config", good}, map[string]string{"LLMPROBER_LOGLEVEL": "debug"}, 2,
			[]string{"LLMPROBER_LOGLEVEL: unknown variable (did you mean LLMPROBER_LOG_LEVEL?)"}},
		{"misspelt variable in the demo", []string{"demo"}, map[string]string{"LLMPROBER_LISTEN_ADDR": "127.0.0.1:0"}, 2,
			[]string{"LLMPROBER_LISTEN_ADDR: unknown variable (did you mean LLMPROBER_LISTEN_ADDRESS?)"}},
		{"unknown exporter", []string{"check", "--config", good}, map[string]string{"OTEL_METRICS_EXPORTER": "bogus"}, 2, []string{"OTEL_METRICS_EXPORTER", "bogus"}},
		{"unknown OTLP protocol", []string{"check", "--config", good}, map[string]string{"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "carrier-pigeon"}, 2, []string{"OTEL_EXPORTER_OTLP_PROTOCOL"}},
		{"bad web config", []string{"run", "--config", good, "--web-config-file", "/nonexistent/web.yml"}, nil, 2, []string{"--web-config-file /nonexistent/web.yml"}},
		{"help", []string{"run", "--help"}, nil, 0, []string{"-listen-address"}},
		{"unknown command", []string{"frobnicate"}, nil, 2, []string{"unknown command"}},
		{"version with arguments", []string{"version", "x"}, nil, 2, []string{"no arguments"}},
		{"version help", []string{"version", "--help"}, nil, 0, []string{"Usage: llmprober version"}},
		{"sim negative ttft", []string{"sim", "--ttft", "-1s"}, nil, 2, []string{"--ttft: must not be negative (got -1s)"}},
		{"sim negative itl", []string{"sim", "--itl", "-25ms"}, nil, 2, []string{"--itl: must not be negative (got -25ms)"}},
		{"sim fault rate", []string{"sim", "--fault-rate", "2"}, nil, 2, []string{"--fault-rate: must be within [0, 1] (got 2)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut strings.Builder
			err := Run(context.Background(), c.args, &out, &errOut, c.env)
			if code := exitCode(err); code != c.wantCode {
				t.Fatalf("exit code %d, want %d (err %v)", code, c.wantCode, err)
			}
			text := out.String() + errOut.String()
			if err != nil {
				text += err.Error()
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
