package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/dashboards"
	"github.com/llmprober/llmprober/probe/sim"
)

// scrapeInterval is the live test's Prometheus scrape and rule evaluation
// interval; $__rate_interval becomes four of it, $__interval one.
const scrapeInterval = time.Second

// prometheusBinary returns the Prometheus server of Debian's prometheus
// package. Without it the test is skipped, unless
// LLMPROBER_REQUIRE_INTEGRATION=1 makes that a failure.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatalf("LLMPROBER_REQUIRE_INTEGRATION=1 but no prometheus binary: %v", err)
		}
		t.Skip("no prometheus binary (apt-get install prometheus; see .ci/run)")
	}
	return p
}

// liveTargets is the configuration the live test probes the simulated
// endpoint at base with: two streamed targets under the objective set
// "default" (whose TTFT threshold some requests miss), the endpoint
// failing a share of requests at random, and one target whose every
// request stalls past its timeout with one slot and a queue of one, so it
// errors and drops probes.
func liveTargets(base string) string {
	var b strings.Builder
	b.WriteString("targets:\n")
	for _, api := range []string{"chat", "completions"} {
		fmt.Fprintf(&b, `  - name: sim-%s
    base_url: %s/v1
    model: sim-model
    api: %s
    timeout: 2s
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: {rate: 10, max_concurrency: 4}
    objectives:
      - {name: default, ttft: 25ms, itl: 20ms}
`, api, base, api)
	}
	fmt.Fprintf(&b, `  - name: sim-realtime
    base_url: %s/v1
    model: sim-model
    backend: openai_websocket
    timeout: 2s
    realtime: {audio_duration: 300ms, chunk_duration: 100ms, pacing: fast}
    readiness: {path: /health, interval: 50ms}
    schedule: {rate: 5, max_concurrency: 4}
    objectives:
      - {name: default, ttft: 25ms, itl: 20ms}
`, base)
	fmt.Fprintf(&b, `  - name: sim-stalled
    base_url: %s/v1
    model: sim-model
    timeout: 300ms
    headers: {X-Sim-Fault: stall}
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: {rate: 10, max_concurrency: 1, max_queue: 1}
`, base)
	return b.String()
}

// liveVars are the values of the dashboards' variables in the live test.
var liveVars = map[string]string{
	"datasource": "prometheus", "target": "sim-chat|sim-completions|sim-realtime|sim-stalled", "objective": "default",
	"window": "1m", "period": "30d", "job": "llmprober",
	"__rate_interval": (4 * scrapeInterval).String(), "__interval": scrapeInterval.String(), "__range": "1h",
}

// TestIntegrationDashboards runs llmprober against the simulated endpoint
// with faults, OTLP export to a local receiver, and a Prometheus scraping it
// every second (as two instances) with the bundled rules, beside another
// application with GenAI client metrics of its own, and checks that every
// query of every committed dashboard returns data, and that with All
// selected the panels show neither the other application's series nor two
// series under one legend.
func TestIntegrationDashboards(t *testing.T) {
	if testing.Short() {
		t.Skip("live Prometheus test skipped in -short mode")
	}
	bin := prometheusBinary(t)
	began := time.Now()
	s, err := sim.Start(sim.Config{
		TTFT: sim.Latency{Mean: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}, ITL: sim.Latency{Mean: 2 * time.Millisecond},
		OutputTokens: 8, Seed: 1,
		Faults: map[sim.Fault]float64{sim.FaultHTTP500: 0.05, sim.FaultHTTP429: 0.05, sim.FaultMalformed: 0.05},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(otlp.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", otlp.URL+"/v1/metrics")
	t.Setenv("OTEL_METRIC_EXPORT_INTERVAL", "500")
	r := startRun(t, []string{"run", "--config", writeFile(t, "live.yml", liveTargets(s.URL())), "--listen-address", "127.0.0.1:0"},
		map[string]string{"OTEL_METRICS_EXPORTER": "otlp"})
	other := httptest.NewServer(otherApp())
	t.Cleanup(other.Close)
	prom := startPrometheus(t, bin, strings.TrimPrefix(r.base, "http://"), strings.TrimPrefix(other.URL, "http://"))

	queries := dashboardQueries(t)
	// Besides every panel having data, the run must have shown what the
	// panels are for: errors, misses of the objective, drops, OTLP exports.
	queries = append(queries,
		dashboards.Query{Dashboard: "live test", Panel: "errored requests", Expr: `sum(llmprober_requests_total{outcome="errored"}) > 0`},
		dashboards.Query{Dashboard: "live test", Panel: "non-conforming requests", Expr: `sum(llmprober_slo_requests_nonconforming_total) > 0`},
		dashboards.Query{Dashboard: "live test", Panel: "dropped probes", Expr: `sum(llmprober_probes_dropped_total{reason="queue_full"}) > 0`},
		dashboards.Query{Dashboard: "live test", Panel: "OTLP exports", Expr: `sum(llmprober_otlp_exports_total{outcome="success"}) > 0`},
	)
	// A query that returned data once is done: a histogram quantile over a
	// few seconds is NaN whenever no request ended in them, so requiring
	// every query in the same round would fail on a loaded machine.
	failing := pollQueries(prom, queries, time.Now().Add(90*time.Second))
	if len(failing) > 0 {
		t.Fatalf("%d of %d queries returned no data after %v:\n%s\nscrape targets: %s", len(failing), len(queries),
			time.Since(began).Round(time.Second), strings.Join(failing, "\n"), prom.targets())
	}
	t.Logf("all %d queries returned data %v after start", len(queries), time.Since(began).Round(100*time.Millisecond))
	checkAllSelected(t, prom)
}

// pollQueries runs every query until each has returned data once or the
// deadline passes, and returns the last error of each query that never did.
func pollQueries(prom *prometheus, queries []dashboards.Query, deadline time.Time) []string {
	pending := slices.Clone(queries)
	var failing []string
	for {
		failing = failing[:0]
		left := pending[:0]
		for _, q := range pending {
			if err := prom.hasData(q.Expr); err != nil {
				failing = append(failing, fmt.Sprintf("%s: %v", q, err))
				left = append(left, q)
			}
		}
		pending = left
		if len(pending) == 0 || time.Now().After(deadline) {
			return failing
		}
		time.Sleep(scrapeInterval)
	}
}

// dashboardQueries returns every query of every committed dashboard with
// the variables expanded to the run's values.
func dashboardQueries(t *testing.T) []dashboards.Query {
	t.Helper()
	var out []dashboards.Query
	for _, g := range dashboards.All() {
		raw, err := os.ReadFile(filepath.Join("..", "..", "dashboards", g.File))
		if err != nil {
			t.Fatal(err)
		}
		qs, err := dashboards.Queries(raw)
		if err != nil {
			t.Fatalf("%s: %v", g.File, err)
		}
		for _, q := range qs {
			if q.Expr, err = dashboards.Expand(q.Expr, liveVars); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			out = append(out, q)
		}
	}
	return out
}

// prometheus is a Prometheus server started by the test.
type prometheus struct{ base string }

// startPrometheus starts bin on a free loopback port, scraping llmprober at
// target as two instances (llmprober-a and llmprober-b, as two replicas
// would be) of job llmprober and the application at other as job other, and
// evaluating the bundled rules every scrapeInterval; it waits until
// Prometheus is ready. Cleanup kills it.
func startPrometheus(t *testing.T, bin, target, other string) *prometheus {
	t.Helper()
	return runPrometheus(t, bin, fmt.Sprintf(`scrape_configs:
  - job_name: llmprober
    static_configs:
      - {targets: [%[1]q], labels: {instance: llmprober-a}}
      - {targets: [%[1]q], labels: {instance: llmprober-b}}
  - job_name: other
    static_configs: [{targets: [%[2]q]}]
`, target, other))
}

// runPrometheus starts bin with the scrape configuration scrape, scraping
// and evaluating the bundled rules every scrapeInterval, and waits until it
// is ready. Cleanup kills it.
func runPrometheus(t *testing.T, bin, scrape string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	rules, err := filepath.Abs(filepath.Join("..", "..", "deploy", "llmprober-rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`global: {scrape_interval: %[1]s, scrape_timeout: %[1]s, evaluation_interval: %[1]s}
rule_files: [%[2]q]
`, scrapeInterval, rules) + scrape
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := closedPort(t)
	logs := &syncBuffer{}
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("could not start %s: %v", bin, err)
	}
	var waitErr error
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	p := &prometheus{base: "http://" + addr}
	deadline := time.Now().Add(30 * time.Second)
	for !p.ready() {
		select {
		case <-exited:
			t.Fatalf("prometheus exited: %v\n%s", waitErr, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready after 30 s:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return p
}

// ready reports whether /-/ready answers 200.
func (p *prometheus) ready() bool {
	resp, err := http.Get(p.base + "/-/ready")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

// queryResult is the part of a /api/v1/query answer read here.
type queryResult struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// targets returns Prometheus's view of its scrape targets (health, last
// error, last scrape duration), for a failure message.
func (p *prometheus) targets() string {
	resp, err := http.Get(p.base + "/api/v1/targets?state=active")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// hasData runs expr as an instant query and fails unless it returns at
// least one sample that is a number (not NaN).
func (p *prometheus) hasData(expr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/v1/query?query="+url.QueryEscape(expr), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("could not query: %w", err)
	}
	defer resp.Body.Close()
	var res queryResult
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil {
		return fmt.Errorf("could not read answer (HTTP %d): %w", resp.StatusCode, err)
	}
	if res.Status != "success" {
		return fmt.Errorf("query failed: %s", res.Error)
	}
	values, err := sampleValues(res.Data.ResultType, res.Data.Result)
	if err != nil {
		return err
	}
	if len(values) == 0 {
		return errors.New("no data")
	}
	for _, v := range values {
		if !math.IsNaN(v) {
			return nil
		}
	}
	return fmt.Errorf("no data: %d samples, all NaN", len(values))
}

// sampleValues returns the values of an instant query's vector or scalar.
func sampleValues(resultType string, raw json.RawMessage) ([]float64, error) {
	var pairs [][2]any
	switch resultType {
	case "vector":
		var vec []struct {
			Value [2]any `json:"value"`
		}
		if err := json.Unmarshal(raw, &vec); err != nil {
			return nil, fmt.Errorf("could not read vector: %w", err)
		}
		for _, s := range vec {
			pairs = append(pairs, s.Value)
		}
	case "scalar":
		var s [2]any
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("could not read scalar: %w", err)
		}
		pairs = append(pairs, s)
	default:
		return nil, fmt.Errorf("result type %s; want vector or scalar", resultType)
	}
	out := make([]float64, 0, len(pairs))
	for _, pr := range pairs {
		str, _ := pr[1].(string)
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, fmt.Errorf("could not read sample value %v: %w", pr[1], err)
		}
		out = append(out, v)
	}
	return out, nil
}
