package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
)

// targetsConfig is a configuration of n streamed chat targets t0 … t(n−1)
// at the default constant rate, without objectives, and extra settings.
func targetsConfig(n int, extra string) string {
	var b strings.Builder
	b.WriteString(extra + "targets:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: t%d, base_url: 'http://127.0.0.1:1/v1', model: m}\n", i)
	}
	return b.String()
}

// distinctThresholds returns n targets whose objective sets have TTFT
// thresholds of 301, 302, … ms, under a series_limit of 50 000.
func distinctThresholds(n int) string {
	var b strings.Builder
	b.WriteString("series_limit: 50000\ntargets:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: t%d, base_url: 'http://127.0.0.1:1/v1', model: m, objectives: [{name: d, ttft: %dms}]}\n", i, 301+i)
	}
	return b.String()
}

// runCheck runs check with args and returns its exit code and output.
func runCheck(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut strings.Builder
	err := Run(context.Background(), append([]string{"check"}, args...), &out, &errOut, nil)
	text := out.String() + errOut.String()
	if err != nil {
		text += err.Error()
	}
	return exitCode(err), text
}

// A target without objectives costs the 484 series of the README's default
// target less its objective set: 1 + 1 + 11 counters, 2 gauges and 7
// window gauges (4 and the verdict's 3 states) in each of 3 windows, so 448; build info and the
// heartbeat are shared.
func TestCheckPrintsSeriesBudget(t *testing.T) {
	code, out := runCheck(t, "--config", writeFile(t, "c.yml", targetsConfig(2, "")))
	_, withThreshold := runCheck(t, "--config", writeFile(t, "t.yml", distinctThresholds(1)))
	if want := "objective thresholds: 1 bucket boundary beyond the default ones, 1 series"; !strings.Contains(withThreshold, want) {
		t.Errorf("output lacks %q:\n%s", want, withThreshold)
	}
	if strings.Contains(out, "objective thresholds") {
		t.Errorf("no threshold, but a threshold line:\n%s", out)
	}
	for _, want := range []string{
		"configuration is valid: 2 target(s): t0, t1",
		"series: up to 898 (448 per target, 2 shared; series_limit 250000)",
		"largest instrument: llmprober_window_percentile_seconds with 42 attribute sets (OpenTelemetry cardinality limit 2000)",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
}

// TestCheckRefusesOverBudget: 2000 targets export 2000 × 448 + 2 series,
// above the default series_limit; every window gauge makes 200 targets too
// many for a limit of 100 000 as well.
func TestCheckRefusesOverBudget(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"2000 targets", targetsConfig(2000, ""),
			"series_limit: the configuration exports up to 896002 series (2000 targets, 448 per target; largest instrument llmprober_window_percentile_seconds with 42000 attribute sets), above series_limit 250000"},
		{"every window gauge", targetsConfig(200, "series_limit: 100000\nwindow_gauges: {export: [percentiles, means, tokens, rates, slo, intervals], percentiles: [p50, p90, p95, p99, p99.9]}\n"),
			"above series_limit 100000: raise series_limit, export fewer window gauges (window_gauges), windows or objective sets, or split the targets over replicas (--shards)"},
		// 100 targets with a TTFT threshold each, 301 to 400 ms, none of
		// them a default boundary: 100 boundaries more in every target's
		// TTFT histogram (one attribute set each), 100 × 100 series.
		{"distinct thresholds", distinctThresholds(100),
			"10000 of them are the 100 bucket boundaries that objective thresholds add beyond the default ones, " +
				"each one series more per attribute set of its histogram, for every target), above series_limit 50000: " +
				"raise series_limit, export fewer window gauges (window_gauges), windows or objective sets, " +
				"share objective thresholds between targets or use default bucket boundaries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runCheck(t, "--config", writeFile(t, "c.yml", tc.config))
			if code != 2 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, output lacks %q:\n%s", code, tc.want, out)
			}
		})
	}
}

// validTargets extracts the target names check lists.
var validTargets = regexp.MustCompile(`configuration is valid: \d+ target\(s\): ?(.*)`)

// TestCheckShards: three shards of 30 targets hold each target exactly
// once, as shardOf places them.
func TestCheckShards(t *testing.T) {
	file := writeFile(t, "c.yml", targetsConfig(30, ""))
	var all []string
	for shard := range 3 {
		code, out := runCheck(t, "--config", file, "--shards", "3", "--shard", fmt.Sprint(shard))
		m := validTargets.FindStringSubmatch(out)
		if code != 0 || m == nil || !strings.Contains(out, fmt.Sprintf("shard %d of 3 (0-based)", shard)) {
			t.Fatalf("shard %d: exit %d:\n%s", shard, code, out)
		}
		for name := range strings.SplitSeq(m[1], ", ") {
			if wiring.ShardOf(name, 3) != shard {
				t.Errorf("shard %d lists %s, whose shard is %d", shard, name, wiring.ShardOf(name, 3))
			}
			all = append(all, name)
		}
	}
	slices.Sort(all)
	if len(all) != 30 || len(slices.Compact(slices.Clone(all))) != 30 {
		t.Errorf("the shards hold %d names, %d distinct; want each of 30 once", len(all), len(slices.Compact(all)))
	}
}

func TestShardFlagErrors(t *testing.T) {
	file := writeFile(t, "c.yml", targetsConfig(1, ""))
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--shards", "0"}, nil, "--shards must be at least 1 (got 0)"},
		{[]string{"--shards", "2", "--shard", "2"}, nil, "--shard must be between 0 and --shards minus 1, 1 (got 2)"},
		{[]string{"--shard", "-1"}, nil, "--shard must be between 0 and --shards minus 1, 0 (got -1)"},
		{nil, map[string]string{envShards: "two"}, `LLMPROBER_SHARDS="two" is not an integer`},
		// Replicas given the count but not their index would all probe
		// shard 0.
		{[]string{"--shards", "3"}, nil, "--shards 3 needs --shard (or $LLMPROBER_SHARD), this replica's shard from 0 to 2"},
		{nil, map[string]string{envShards: "2"}, "--shards 2 needs --shard (or $LLMPROBER_SHARD)"},
	} {
		var out, errOut strings.Builder
		err := Run(context.Background(), append([]string{"check", "--config", file}, tc.args...), &out, &errOut, tc.env)
		if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: exit %d, %v; want 2 and %q", tc.args, tc.env, exitCode(err), err, tc.want)
		}
	}
	// The variables set the defaults; the flags win.
	code, out := runCheck(t, "--config", writeFile(t, "d.yml", targetsConfig(30, "")), "--shards", "3", "--shard", "0")
	if code != 0 || !strings.Contains(out, "shard 0 of 3") {
		t.Errorf("flags: exit %d\n%s", code, out)
	}
	var o, e strings.Builder
	err := Run(context.Background(), []string{"check", "--config", file, "--shard", "0"}, &o, &e,
		map[string]string{envShard: "1", envShards: "2"})
	if err != nil || !strings.Contains(o.String(), "shard 0 of 2") {
		t.Errorf("--shard 0 with LLMPROBER_SHARD=1, LLMPROBER_SHARDS=2: %v\n%s", err, o.String())
	}
}

// TestRunProbesItsShard: run --shards 2 --shard 1 probes, and exports,
// only the targets of shard 1.
func TestRunProbesItsShard(t *testing.T) {
	cfg := targetsConfig(6, "")
	cfg = strings.ReplaceAll(cfg, "model: m}", "model: m, readiness: {path: none}, schedule: {rate: 0.1}}")
	r := startRun(t, []string{"run", "--config", writeFile(t, "c.yml", cfg), "--listen-address", "127.0.0.1:0",
		"--shards", "2", "--shard", "1"}, nil)
	_, body := r.get(t, "/api/v1/targets")
	_, metrics := r.get(t, "/metrics")
	if err := r.stop(); !isCanceled(err) {
		t.Fatal(err)
	}
	for i := range 6 {
		name := fmt.Sprintf("t%d", i)
		in := wiring.ShardOf(name, 2) == 1
		if strings.Contains(body, `"name": "`+name+`"`) != in ||
			strings.Contains(metrics, `llmprober_target_info{api="chat",model="m",server_address="127.0.0.1",stream="true",target="`+name+`"}`) != in {
			t.Errorf("%s (shard %d): in the API %v, in /metrics %v; want both %v", name, wiring.ShardOf(name, 2),
				strings.Contains(body, `"name": "`+name+`"`), strings.Contains(metrics, `target="`+name+`"`), in)
		}
	}
	if !strings.Contains(r.stderr.String(), "shards=2") {
		t.Errorf("no log line about the shard:\n%s", r.stderr.String())
	}
}

// TestCheckWarnsOfEmptyDashboardPanels: check warns when window_gauges
// leave out a gauge the bundled dashboards read (it stays valid); the slo
// family only matters with objective sets.
func TestCheckWarnsOfEmptyDashboardPanels(t *testing.T) {
	const withObjectives = "targets:\n  - {name: a, base_url: 'http://127.0.0.1:1/v1', model: m, objectives: [{name: d, ttft: 1s}]}\n"
	for _, tc := range []struct {
		name, config string
		want         []string
	}{
		{"defaults", withObjectives, nil},
		{"no percentile levels", "window_gauges: {percentiles: []}\n" + withObjectives,
			[]string{"warning: window_gauges.percentiles leaves out p99, which the bundled overview dashboard reads: its exact p99 panels stay empty"}},
		{"no families", "window_gauges: {export: []}\n" + withObjectives, []string{
			"warning: window_gauges.export leaves out percentiles, which the bundled overview dashboard reads",
			"warning: window_gauges.export leaves out slo, which the bundled overview dashboard reads: its window attainment and goodput panels"}},
		{"no families, no objectives", "window_gauges: {export: []}\n" + targetsConfig(1, ""), []string{
			"warning: window_gauges.export leaves out percentiles"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out := runCheck(t, "--config", writeFile(t, "c.yml", tc.config))
			if code != 0 || strings.Count(out, "warning: ") != len(tc.want) {
				t.Fatalf("exit %d, want 0 and %d warnings:\n%s", code, len(tc.want), out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
