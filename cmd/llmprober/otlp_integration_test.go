package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/dashboards"
	"github.com/llmprober/llmprober/probe/sim"
)

// collectorBinary returns the OpenTelemetry Collector that .ci/otelcol
// builds: LLMPROBER_OTELCOL, else the one in its default cache. Without
// one the test is skipped, unless LLMPROBER_REQUIRE_INTEGRATION=1 makes
// that a failure.
func collectorBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("LLMPROBER_OTELCOL"); p != "" {
		return p
	}
	if found, _ := filepath.Glob("/var/cache/llmprober/otelcol/*/otelcol-llmprober"); len(found) > 0 {
		return found[0]
	}
	if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
		t.Fatal("LLMPROBER_REQUIRE_INTEGRATION=1 but no collector: set LLMPROBER_OTELCOL (bash .ci/otelcol/ensure.sh build)")
	}
	t.Skip("no OpenTelemetry Collector: set LLMPROBER_OTELCOL (bash .ci/otelcol/ensure.sh build)")
	return ""
}

// process is an OS process started by a test, with its output.
type process struct {
	cmd    *exec.Cmd
	output *syncBuffer
	done   chan struct{}
	err    error
}

// startProcess starts bin with args and env (added to the test's own
// environment) and kills it at cleanup.
func startProcess(t *testing.T, bin string, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), output: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("could not start %s: %v", bin, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// await waits until the output matches re and returns its first group.
func (p *process) await(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := re.FindStringSubmatch(p.output.String()); m != nil {
			return m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited: %v\n%s", p.cmd.Path, p.err, p.output.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no %s after 30 s:\n%s", p.cmd.Path, re, p.output.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// buildLLMProber builds this command into dir and returns the binary.
func buildLLMProber(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "llmprober")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startCollector runs the collector with an OTLP/HTTP receiver and a
// Prometheus exporter, both on loopback, and returns their addresses once
// the exporter answers.
func startCollector(t *testing.T, bin string) (otlp, metrics string) {
	t.Helper()
	otlp, metrics = closedPort(t), closedPort(t)
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http: {endpoint: %q}
exporters:
  prometheus: {endpoint: %q}
service:
  telemetry:
    metrics: {level: none}
    logs: {level: warn}
  pipelines:
    metrics: {receivers: [otlp], exporters: [prometheus]}
`, otlp, metrics)
	path := writeFile(t, "otelcol.yml", cfg)
	p := startProcess(t, bin, nil, "--config", "file:"+path)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + metrics + "/metrics")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			return otlp, metrics
		}
		select {
		case <-p.done:
			t.Fatalf("collector exited: %v\n%s", p.err, p.output.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("collector not serving after 30 s:\n%s", p.output.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// replicaRate is the constant rate of the rate-checked target, per replica.
const replicaRate = 10.0

// TestIntegrationOTLPReplicas runs two llmprober processes with one
// configuration pushing OTLP/HTTP to a real OpenTelemetry Collector, and a
// real Prometheus scraping the collector's Prometheus exporter (with
// honor_labels, so job and instance are the collector's: service.name and
// service.instance.id) and evaluating the bundled rules. It checks that
// each replica has its own series (no counter resets), that rates agree
// with the replicas' own counters within 5%, and that every dashboard query and
// variable returns data on this path as on the scrape path.
func TestIntegrationOTLPReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("live collector test skipped in -short mode")
	}
	promBin, colBin := prometheusBinary(t), collectorBinary(t)
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
	otlp, exported := startCollector(t, colBin)
	prom := runPrometheus(t, promBin, fmt.Sprintf(`scrape_configs:
  - job_name: otel-collector
    honor_labels: true
    static_configs: [{targets: [%q]}]
`, exported))
	bin := buildLLMProber(t)
	cfg := writeFile(t, "live.yml", liveTargets(s.URL()))
	env := []string{"OTEL_METRICS_EXPORTER=otlp", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=http://" + otlp + "/v1/metrics",
		"OTEL_METRIC_EXPORT_INTERVAL=1000", "OTEL_RESOURCE_ATTRIBUTES=", "OTEL_SERVICE_NAME="}
	var ids, bases []string
	for range 2 {
		p := startProcess(t, bin, env, "run", "--config", cfg, "--listen-address", "127.0.0.1:0")
		addr := p.await(t, regexp.MustCompile(`listening on (\S+)\n`))
		bases = append(bases, "http://"+addr)
		ids = append(ids, instanceID(t, "http://"+addr))
	}
	if ids[0] == ids[1] {
		t.Fatalf("both replicas have service.instance.id %s", ids[0])
	}
	queries := dashboardQueries(t)
	queries = append(queries,
		dashboards.Query{Dashboard: "live test", Panel: "errored requests", Expr: `sum(llmprober_requests_total{outcome="errored"}) > 0`},
		dashboards.Query{Dashboard: "live test", Panel: "dropped probes", Expr: `sum(llmprober_probes_dropped_total{reason="queue_full"}) > 0`},
		dashboards.Query{Dashboard: "live test", Panel: "two replicas", Expr: `count(llmprober_build_info{job="llmprober"}) == 2`},
	)
	if failing := pollQueries(prom, queries, time.Now().Add(120*time.Second)); len(failing) > 0 {
		t.Fatalf("%d of %d queries returned no data on the OTLP path after %v:\n%s\nscrape targets: %s", len(failing), len(queries),
			time.Since(began).Round(time.Second), strings.Join(failing, "\n"), prom.targets())
	}
	t.Logf("all %d queries returned data on the OTLP path %v after start", len(queries), time.Since(began).Round(100*time.Millisecond))
	checkReplicaSeries(t, prom, ids, bases)
	checkAllSelected(t, prom)
}

// instanceID reads a replica's service.instance.id from its build info.
func instanceID(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	re := regexp.MustCompile(`^llmprober_build_info\{.*service_instance_id="([^"]+)"`)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			return m[1]
		}
	}
	t.Fatalf("%s/metrics has no llmprober_build_info with service_instance_id", base)
	return ""
}

// rateWindow is how long the rate check measures.
const rateWindow = 60 * time.Second

// checkReplicaSeries: Prometheus has each replica's series under its own
// instance (its service.instance.id) and no counter resets, and its rates
// of sim-chat's scheduled and finished requests, per replica and over
// both, agree within 5% with the replicas' own counters read from their
// /metrics over the same rateWindow.
func checkReplicaSeries(t *testing.T, prom *prometheus, ids, bases []string) {
	t.Helper()
	byInstance := prom.values(t, `count by (instance) (llmprober_build_info{job="llmprober",service_name="llmprober"})`, "instance")
	if len(byInstance) != 2 || byInstance[ids[0]] != 1 || byInstance[ids[1]] != 1 {
		t.Errorf("build info by instance %v; want one for each of %v", byInstance, ids)
	}
	families := []string{"llmprober_probes_scheduled_total", "llmprober_requests_total"}
	before, t1 := ownCounts(t, bases, families), time.Now()
	time.Sleep(rateWindow)
	after, t2 := ownCounts(t, bases, families), time.Now()
	// What Prometheus has lags the processes by up to an export interval
	// and a scrape: let it catch up, then look back over the same length.
	time.Sleep(2 * time.Second)
	if r := prom.values(t, `sum(resets(llmprober_probes_scheduled_total[2m])) + sum(resets(llmprober_requests_total[2m]))`, ""); r[""] != 0 {
		t.Errorf("%v counter resets in 2 minutes; replicas overwriting each other's series would reset them", r[""])
	}
	window := fmt.Sprintf("[%ds]", int(rateWindow.Seconds()))
	var totalTrue float64
	for _, f := range families {
		got := prom.values(t, `sum by (instance) (increase(`+f+`{target="sim-chat"}`+window+`))`, "instance")
		for i, id := range ids {
			want := (after[i][f] - before[i][f]) / t2.Sub(t1).Seconds()
			rate := got[id] / rateWindow.Seconds()
			if math.Abs(rate-want) > 0.05*want || want < replicaRate/2 {
				t.Errorf("%s of %s: Prometheus %.3f/s, the replica's own counter %.3f/s; want within 5%%", f, id, rate, want)
			}
			t.Logf("%s{target=sim-chat} of replica %d: Prometheus %.3f/s, replica %.3f/s (configured %v)", f, i, rate, want, replicaRate)
			if f == "llmprober_requests_total" {
				totalTrue += want
			}
		}
	}
	sum := prom.values(t, `sum by (target) (increase(llmprober_requests_total{target="sim-chat"}`+window+`))`, "target")
	if rate := sum["sim-chat"] / rateWindow.Seconds(); math.Abs(rate-totalTrue) > 0.05*totalTrue {
		t.Errorf("finished requests of sim-chat over both replicas: Prometheus %.3f/s, replicas %.3f/s; want within 5%%", rate, totalTrue)
	}
}

// ownCounts reads each replica's /metrics and sums the sim-chat series of
// each family.
func ownCounts(t *testing.T, bases, families []string) []map[string]float64 {
	t.Helper()
	out := make([]map[string]float64, len(bases))
	for i, base := range bases {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		out[i] = map[string]float64{}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			for _, f := range families {
				if strings.HasPrefix(line, f+"{") && strings.Contains(line, `target="sim-chat"`) {
					var v float64
					_, _ = fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v)
					out[i][f] += v
				}
			}
		}
		_ = resp.Body.Close()
	}
	return out
}

// values runs an instant query and returns its values by the value of
// label ("" for a single sample without it).
func (p *prometheus) values(t *testing.T, expr, label string) map[string]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/v1/query?query="+url.QueryEscape(expr), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || res.Status != "success" {
		t.Fatalf("%s: %v %s", expr, err, res.Error)
	}
	out := map[string]float64{}
	for _, r := range res.Data.Result {
		var v float64
		if s, ok := r.Value[1].(string); ok {
			_, _ = fmt.Sscan(s, &v)
		}
		out[r.Metric[label]] = v
	}
	return out
}
