package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fleetConfig is n streamed chat targets of the endpoint at base, each at
// a low constant rate with two objective sets, default windows and window
// gauges.
func fleetConfig(base string, n int) string {
	var b strings.Builder
	b.WriteString("targets:\n")
	for i := range n {
		fmt.Fprintf(&b, `  - name: fleet-%03d
    base_url: %s/v1
    model: sim-model
    readiness: {path: none}
    workload: {prompt_tokens: 8, output_tokens: 4}
    schedule: {rate: 0.2}
    objectives:
      - {name: default, ttft: 500ms, itl: 50ms}
      - {name: strict, latency: 10s, attainment: 0.999}
`, i, base)
	}
	return b.String()
}

// seriesLine is one sample line of the exposition: its family and labels.
var seriesLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? `)

// TestIntegrationFleet200Targets runs 200 targets in one process against
// the simulated endpoint and checks, once each target has finished a
// request, that every target has its window gauges in every window, that
// no instrument has an overflow series, and that the series served stay
// within the budget check prints (which counts every series that can
// ever appear).
func TestIntegrationFleet200Targets(t *testing.T) {
	if testing.Short() {
		t.Skip("200-target test skipped in -short mode")
	}
	const n = 200
	s := startSim(t)
	cfg := writeFile(t, "fleet.yml", fleetConfig(s.URL(), n))
	code, check := runCheck(t, "--config", cfg)
	budget := regexp.MustCompile(`series: up to (\d+) \((\d+) per target`).FindStringSubmatch(check)
	if code != 0 || budget == nil {
		t.Fatalf("check: exit %d\n%s", code, check)
	}
	r := startRun(t, []string{"run", "--config", cfg, "--listen-address", "127.0.0.1:0"}, nil)
	var body string
	eventually(t, 60*time.Second, "a window p99 of TTFT for every target in every window", func() bool {
		_, body = r.get(t, "/metrics")
		return strings.Count(body, `llmprober_window_percentile_seconds{metric="time_to_first_token",percentile="p99"`) == 3*n
	})
	if err := r.stop(); !isCanceled(err) {
		t.Fatal(err)
	}
	perFamily, total := map[string]int{}, 0
	for line := range strings.SplitSeq(body, "\n") {
		m := seriesLine.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "go_") || strings.HasPrefix(m[1], "process_") {
			continue
		}
		if strings.Contains(m[2], "otel_metric_overflow") {
			t.Errorf("overflow series: %s", line)
		}
		perFamily[m[1]]++
		total++
	}
	for i := range n {
		name := fmt.Sprintf("fleet-%03d", i)
		for _, w := range []string{"1m", "5m", "1h"} {
			for _, want := range []string{
				`llmprober_window_percentile_seconds{metric="request_latency",percentile="p99",target="` + name + `",window="` + w + `"}`,
				`llmprober_window_slo_attainment{objective="strict",target="` + name + `",window="` + w + `"}`,
			} {
				if !strings.Contains(body, want) {
					t.Errorf("/metrics lacks %s", want)
				}
			}
		}
	}
	limit, err := strconv.Atoi(budget[1])
	if err != nil || total > limit || strings.Contains(r.stderr.String(), "cardinality limit") {
		t.Errorf("%d series served, budget %d; log:\n%s", total, limit, r.stderr.String())
	}
	t.Logf("%d targets: %d series served (%.0f per target; %d window percentile gauges), budget %s (%s per target), %s",
		n, total, float64(total)/n, perFamily["llmprober_window_percentile_seconds"], budget[1], budget[2],
		strings.TrimSpace(strings.Split(check, "\n")[2]))
}
