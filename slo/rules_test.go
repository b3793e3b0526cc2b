package slo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

// ruleFile is the part of a Prometheus rule file the tests read.
type ruleFile struct {
	Groups []struct {
		Name  string
		Rules []struct {
			Record, Alert, Expr string
			Labels              map[string]string
		}
	}
}

// parseRules decodes a rule file and parses every expression with the
// Prometheus PromQL parser; it returns the record and alert names by group.
func parseRules(t *testing.T, data []byte) map[string][]string {
	t.Helper()
	var f ruleFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("could not decode rules: %v", err)
	}
	names := map[string][]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if _, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr); err != nil {
				t.Errorf("group %s, rule %s%s: %v\n%s", g.Name, r.Record, r.Alert, err, r.Expr)
			}
			names[g.Name] = append(names[g.Name], r.Record+r.Alert)
		}
	}
	return names
}

func TestRulesParseAndCover(t *testing.T) {
	objs := []RuleObjective{
		{Name: "default", Attainment: 0.99, Period: 30 * day},
		{Name: "strict", Targets: []string{"a.b", "c"}, Attainment: 0.999, Period: 28 * day},
	}
	out, err := Rules(objs, RuleOptions{MinRequests: 5, MaxDispatchDelay: 500 * time.Millisecond})
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	names := parseRules(t, out)
	// 7 windows + the period (30d, 28d), each an error ratio and an evaluated
	// count, the objective ratio and 2 alerts: 8×2 + 1 + 2 = 19 rules.
	for _, g := range []string{"llmprober-slo-default", "llmprober-slo-strict-a.b-c"} {
		if n := len(names[g]); n != 19 {
			t.Errorf("group %s has %d rules, want 19: %v", g, n, names[g])
		}
	}
	// Without a job, LLMProberDown keeps its job-agnostic parts.
	want := []string{"LLMProberDown", "LLMProberReplicaMissing", "LLMProberTargetNotReady", "LLMProberTargetStale",
		"LLMProberTargetFailing", "LLMProberNoSuccessfulProbe", "LLMProberBehindSchedule", "LLMProberProbesDropped"}
	if got := names["llmprober-health"]; !reflect.DeepEqual(got, want) {
		t.Errorf("health alerts = %v, want %v", got, want)
	}
	if bytes.Contains(out, []byte("up{job=")) || bytes.Contains(out, []byte("absent(")) {
		t.Error("no job, but LLMProberDown watches one")
	}
	// No coverage guard with MinCoverage 0.
	if bytes.Contains(out, []byte("and on (target) llmprober:target_coverage")) {
		t.Error("MinCoverage 0 left a coverage guard")
	}
	reporting := []string{"llmprober:replica_reporting:group", "llmprober:replica_reported:group7h",
		"llmprober:replicas_reporting:count", "llmprober:replicas_reporting:min15m", "llmprober:target_reported:group7h",
		"llmprober:target_coverage:ratio1h", "llmprober:target_coverage:ratio6h",
		"llmprober:target_coverage:ratio1d", "llmprober:target_coverage:ratio3d"}
	if got := names["llmprober-reporting"]; !reflect.DeepEqual(got, reporting) {
		t.Errorf("reporting rules = %v, want %v", got, reporting)
	}
	for _, s := range []string{
		`objective="strict",target=~"a\\.b|c"`,                    // targets escaped as a regex, then quoted
		`le=~"0\\.5"`,                                             // 0.5 s written the same way everywhere
		`llmprober:slo_error_ratio:rate28d`,                       // the period's own window
		`increase5m{objective="default"} >= 5`,                    // the minimum
		`rate1h{objective="default"} > 0.144`,                     // 14.4 × (1 − 0.99)
		`rate3d{objective="strict",target=~"a\\.b|c"} > 0.000933`, // 0.1 × 28d/3d = 0.9333 × 0.001
	} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("rules lack %s", s)
		}
	}
}

// TestGuardsAndHealthRules checks the rules the default options add: the
// coverage guard on every burn pair with its own long window, and the
// alerts of a dead or blind prober.
func TestGuardsAndHealthRules(t *testing.T) {
	out, err := Rules(DefaultRuleObjectives(), RuleOptions{MinRequests: 10, MaxDispatchDelay: time.Second, MinCoverage: 0.75, Job: "probe-eu",
		MaxReportAge: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	names := parseRules(t, out)
	for _, s := range []string{
		"and on (target) llmprober:target_coverage:ratio1h >= 0.75",
		"and on (target) llmprober:target_coverage:ratio6h >= 0.75",
		"and on (target) llmprober:target_coverage:ratio1d >= 0.75",
		"and on (target) llmprober:target_coverage:ratio3d >= 0.75",
		// Coverage counts the instants the target was ready, not waiting.
		`count_over_time((group by (target) (llmprober_target_state{state="ready"} == 1))[3d:72m]) / 60`,
		// A replica reports while its heartbeat is at most 90 s old.
		"group by (job, instance) (time() - llmprober_collection_timestamp_seconds <= 90)",
		`up{job="probe-eu"} == 0`,
		`absent(llmprober:replica_reporting:group{job="probe-eu"})`,
		// Any job's scrape target that reported, and any job whose
		// replicas all stopped reporting.
		"(up == 0 and on (job, instance) llmprober:replica_reported:group7h)",
		"group by (job) (llmprober:replica_reported:group7h)\n            unless on (job) llmprober:replica_reporting:group",
		`max by (job, instance, target) (llmprober_target_state{state="failed"}) == 1`,
		"max_over_time(llmprober_target_info[7h])",
		// At least the minimum of errors for LLMProberTargetFailing.
		`sum by (target) (increase(llmprober_requests_total{outcome="errored"}[10m])) >= 10`,
		// Every target alert is held while its target is stale.
		`group by (job, instance, target) (ALERTS{alertname="LLMProberTargetNotReady", alertstate="firing"})`,
		`group by (target, reason) (ALERTS{alertname="LLMProberProbesDropped", alertstate="firing"})`,
		`group by (target, objective) (ALERTS{alertname="LLMProberSLOBurnRateTicket", alertstate="firing", objective="default"})`,
	} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("rules lack %s", s)
		}
	}
	if got := names["llmprober-health"][0]; got != "LLMProberDown" {
		t.Errorf("first health alert %s, want LLMProberDown", got)
	}
	for _, bad := range []RuleOptions{
		{MaxDispatchDelay: time.Second, MinCoverage: 1.5},
		{MaxDispatchDelay: time.Second, MinCoverage: -0.1},
	} {
		if _, err := Rules(DefaultRuleObjectives(), bad); err == nil || !strings.Contains(err.Error(), "minimum coverage") {
			t.Errorf("Rules(%+v) error %v, want a minimum coverage error", bad, err)
		}
	}
	for _, age := range []time.Duration{29 * time.Second, 61 * time.Minute, 90500 * time.Millisecond} {
		if _, err := Rules(DefaultRuleObjectives(), RuleOptions{MaxDispatchDelay: time.Second, MaxReportAge: age}); err == nil ||
			!strings.Contains(err.Error(), "oldest heartbeat") {
			t.Errorf("MaxReportAge %v: error %v, want a heartbeat age error", age, err)
		}
	}
	// Without a minimum, one error in 10 minutes of errors is enough.
	if out, _ := Rules(DefaultRuleObjectives(), RuleOptions{MaxDispatchDelay: time.Second}); !bytes.Contains(out,
		[]byte(`sum by (target) (increase(llmprober_requests_total{outcome="errored"}[10m])) > 0`+"\n")) {
		t.Error("MinRequests 0: LLMProberTargetFailing is not > 0")
	}
}

func TestBurnFactors(t *testing.T) {
	tests := []struct {
		period time.Duration
		want   []float64
	}{
		// 0.02×720h/1h, 0.05×720h/6h, 0.1×30d/1d, 0.1×30d/3d.
		{30 * day, []float64{14.4, 6, 3, 1}},
		// 0.02×168h/1h = 3.36, 0.05×168/6 = 1.4, 0.1×7 = 0.7, 0.1×7/3 ≈ 0.2333.
		{7 * day, []float64{3.36, 1.4, 0.7, 0.7 / 3}},
	}
	for _, tt := range tests {
		for i, a := range BurnAlerts {
			if got := a.Factor(tt.period); !near(got, tt.want[i]) {
				t.Errorf("period %v, alert %d: factor %v, want %v", tt.period, i, got, tt.want[i])
			}
		}
	}
}

// near reports whether a and b agree to 1e-9.
func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestLeMatcherAndDurations(t *testing.T) {
	// Shortest 'g' form, as the exposition and Prometheus 3 write le: 1e-4 is
	// still "0.0001", 1e-5 switches to an exponent.
	for v, want := range map[float64]string{1: `1(\.0)?`, 0.5: `0\.5`, 10: `10(\.0)?`, 0.025: `0\.025`,
		0.0001: `0\.0001`, 0.00025: `0\.00025`, 1e-5: `1e-05`} {
		if got := LeMatcher(v); got != want {
			t.Errorf("LeMatcher(%v) = %s, want %s", v, got, want)
		}
	}
	for d, want := range map[time.Duration]string{30 * day: "30d", 6 * time.Hour: "6h", 90 * time.Minute: "90m", 1500 * time.Millisecond: "1500ms"} {
		if got := PromDuration(d); got != want {
			t.Errorf("PromDuration(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestRuleObjectives(t *testing.T) {
	def := Objective{Name: "default", Attainment: 0.99, Period: 30 * day}
	strict := Objective{Name: "default", Attainment: 0.999, Period: 30 * day}
	got := RuleObjectives(map[string][]Objective{"a": {def}, "b": {def}, "c": {strict}})
	want := []RuleObjective{
		{Name: "default", Targets: []string{"a", "b"}, Attainment: 0.99, Period: 30 * day},
		{Name: "default", Targets: []string{"c"}, Attainment: 0.999, Period: 30 * day},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RuleObjectives = %+v, want %+v", got, want)
	}
	got = RuleObjectives(map[string][]Objective{"a": {def}, "b": {def}})
	if len(got) != 1 || got[0].Targets != nil {
		t.Errorf("one group for every target = %+v, want no target matcher", got)
	}
}

// deployDir holds the committed rule files.
const deployDir = "../deploy"

func TestCommittedRulesAreCurrent(t *testing.T) {
	rules, err := Rules(DefaultRuleObjectives(), DefaultRuleOptions())
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	for file, want := range map[string][]byte{
		"llmprober-rules.yml":          rules,
		"llmprober-prometheusrule.yml": PrometheusRule(rules, "llmprober"),
	} {
		got, err := os.ReadFile(filepath.Join(deployDir, file))
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: regenerate it with llmprober rules --default%s", file,
				map[bool]string{true: " --format operator"}[strings.Contains(file, "prometheusrule")])
		}
	}
	var op struct {
		Kind string
		Spec ruleFile
	}
	data, _ := os.ReadFile(filepath.Join(deployDir, "llmprober-prometheusrule.yml"))
	if err := yaml.Unmarshal(data, &op); err != nil || op.Kind != "PrometheusRule" || len(op.Spec.Groups) != 3 {
		t.Errorf("PrometheusRule = kind %q, %d groups, %v; want PrometheusRule with 3 groups", op.Kind, len(op.Spec.Groups), err)
	}
	spec, _ := yaml.Marshal(op.Spec)
	parseRules(t, spec)
}

// TestPromtool checks the committed rules and runs their unit tests with
// promtool; it skips without promtool unless LLMPROBER_REQUIRE_INTEGRATION=1.
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("promtool not installed and LLMPROBER_REQUIRE_INTEGRATION=1")
		}
		t.Skip("promtool not installed")
	}
	for _, args := range [][]string{
		{"check", "rules", "llmprober-rules.yml"},
		{"test", "rules", "llmprober-rules.test.yml"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = deployDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Two objective sets record the same rule names; their static objective
	// labels keep them apart for the duplicate-rule lint.
	two, err := Rules([]RuleObjective{
		{Name: "default", Attainment: 0.99, Period: 30 * day},
		{Name: "strict", Attainment: 0.999, Period: 7 * day},
	}, RuleOptions{MinRequests: 10, MaxDispatchDelay: time.Second})
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	file := filepath.Join(t.TempDir(), "two.yml")
	if err := os.WriteFile(file, two, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", "--lint=duplicate-rules", "--lint-fatal", file).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules --lint-fatal on two objective sets: %v\n%s", err, out)
	}
}

func TestCheckDispatchDelay(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
		ok   bool
	}{
		{"smallest boundary", 100 * time.Microsecond, true},
		{"one second", time.Second, true},
		{"largest boundary", 10 * time.Second, true},
		{"between boundaries", 3 * time.Second, false},
		{"zero", 0, false},
		{"negative", -time.Second, false},
		{"above the largest", 20 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDispatchDelay(tt.d)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckDispatchDelay(%v) = %v, want ok %v", tt.d, err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "100µs, 250µs, 500µs, 1ms") {
				t.Errorf("error %q does not list the allowed values", err)
			}
		})
	}
	if _, err := Rules(DefaultRuleObjectives(), RuleOptions{MinRequests: 10, MaxDispatchDelay: 3 * time.Second}); err == nil {
		t.Error("Rules accepted a dispatch delay between boundaries")
	}
}

// TestDispatchDelayBoundariesMatchExposition compares the boundaries with
// the le values of the exporter's golden exposition, and checks that
// LeMatcher matches each le as written there.
func TestDispatchDelayBoundariesMatchExposition(t *testing.T) {
	data, err := os.ReadFile("../exporter/testdata/golden.prom")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^llmprober_dispatch_delay_seconds_bucket\{target="alpha",le="([^"]+)"\}`)
	var les []string
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		if m[1] != "+Inf" {
			les = append(les, m[1])
		}
	}
	if len(les) != len(DispatchDelayBoundaries) {
		t.Fatalf("exposition has le values %v, want %d boundaries %v", les, len(DispatchDelayBoundaries), DispatchDelayBoundaries)
	}
	for i, le := range les {
		b := DispatchDelayBoundaries[i]
		if !regexp.MustCompile("^(?:" + LeMatcher(b) + ")$").MatchString(le) {
			t.Errorf("boundary %v: LeMatcher %s does not match exposed le %q", b, LeMatcher(b), le)
		}
	}
}

func TestUnreachableAlertsAreLeftOut(t *testing.T) {
	tests := []struct {
		name       string
		obj        RuleObjective
		omitted    int      // pairs left out
		alerts     []string // alerts the group keeps
		contains   []string
		notContain []string
	}{
		// 1h/5m: 0.02 × 366d/1h = 175.68, × 0.01 = 1.7568 ≥ 1; 6h/30m: 0.05 × 1464 = 73.2, × 0.01 = 0.732 < 1.
		{"year at 0.99", RuleObjective{Name: "year", Attainment: 0.99, Period: 366 * day}, 1,
			[]string{"LLMProberSLOBurnRatePage", "LLMProberSLOBurnRateTicket"},
			[]string{"# page pair 1h/5m omitted: its threshold 175.68 x 0.01 = 1.7568", `rate6h{objective="year"} > 0.732`},
			[]string{`rate1h{objective="year"} >`}},
		// × 0.1: 17.568, 7.32, 0.1 × 366 = 36.6 → 3.66, 36.6/3 = 12.2 → 1.22: every pair ≥ 1.
		{"year at 0.9", RuleObjective{Name: "year", Attainment: 0.9, Period: 366 * day}, 4, nil,
			[]string{"# ticket pair 3d/6h omitted"}, []string{"LLMProberSLOBurnRate"}},
		// 0.1 × 3d/1d = 0.3 and 0.1: below 1, so the ticket cannot exhaust the budget within 3d.
		{"three days", RuleObjective{Name: "short", Attainment: 0.99, Period: 3 * day}, 0,
			[]string{"LLMProberSLOBurnRatePage", "LLMProberSLOBurnRateTicket"},
			[]string{"has an error ratio over 1d above 0.3 times the ratio its budget allows, or over 3d above 0.1 times"},
			[]string{"before the period ends"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnreachableAlerts([]RuleObjective{tt.obj}); len(got) != tt.omitted {
				t.Errorf("UnreachableAlerts = %q, want %d entries", got, tt.omitted)
			} else if tt.omitted > 0 && !strings.HasPrefix(got[0], `objective set "year" (rule group llmprober-slo-year): `) {
				t.Errorf("warning %q does not name the objective set", got[0])
			}
			out, err := Rules([]RuleObjective{tt.obj}, RuleOptions{MinRequests: 10, MaxDispatchDelay: time.Second})
			if err != nil {
				t.Fatalf("Rules: %v", err)
			}
			names := parseRules(t, out)
			var alerts []string
			for _, n := range names["llmprober-slo-"+tt.obj.Name] {
				if strings.HasPrefix(n, "LLMProber") {
					alerts = append(alerts, n)
				}
			}
			if !reflect.DeepEqual(alerts, tt.alerts) {
				t.Errorf("alerts = %v, want %v", alerts, tt.alerts)
			}
			for _, s := range tt.contains {
				if !bytes.Contains(out, []byte(s)) {
					t.Errorf("rules lack %s", s)
				}
			}
			for _, s := range tt.notContain {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("rules hold %s", s)
				}
			}
		})
	}
}
