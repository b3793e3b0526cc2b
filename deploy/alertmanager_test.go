package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// alertmanagerConfig is the bundled Alertmanager configuration.
const alertmanagerConfig = "alertmanager/alertmanager.yml"

// inhibitRule is one inhibit rule as the file writes it.
type inhibitRule struct {
	Source []string `yaml:"source_matchers"`
	Target []string `yaml:"target_matchers"`
	Equal  []string `yaml:"equal"`
}

// alertNameMatcher parses a matcher on alertname: alertname="x" or
// alertname=~"re", into an anchored regular expression.
func alertNameMatcher(t *testing.T, m string) *regexp.Regexp {
	t.Helper()
	parts := regexp.MustCompile(`^alertname(=~|=)"(.*)"$`).FindStringSubmatch(m)
	if parts == nil {
		t.Fatalf("matcher %q is not on alertname", m)
	}
	if parts[1] == "=" {
		return regexp.MustCompile("^" + regexp.QuoteMeta(parts[2]) + "$")
	}
	return regexp.MustCompile("^(?:" + parts[2] + ")$")
}

// ruleAlerts returns every alert name of the committed rule file.
func ruleAlerts(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("llmprober-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct{ Alert string } `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" && !slices.Contains(out, r.Alert) {
				out = append(out, r.Alert)
			}
		}
	}
	return out
}

// TestInhibitRulesCoverTheAlerts: the stale rule holds back every alert of
// a target (all but the prober's own LLMProberDown, LLMProberReplicaMissing
// and LLMProberTargetStale itself), by target; LLMProberDown holds back
// LLMProberTargetStale and LLMProberReplicaMissing by job, and
// LLMProberReplicaMissing holds back LLMProberTargetStale by job.
func TestInhibitRulesCoverTheAlerts(t *testing.T) {
	raw, err := os.ReadFile(alertmanagerConfig)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Inhibit []inhibitRule `yaml:"inhibit_rules"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil || len(cfg.Inhibit) != 3 {
		t.Fatalf("inhibit rules %+v, %v; want 3", cfg.Inhibit, err)
	}
	stale, down, replica := cfg.Inhibit[0], cfg.Inhibit[1], cfg.Inhibit[2]
	prober := []string{"LLMProberDown", "LLMProberReplicaMissing", "LLMProberTargetStale"}
	alerts := ruleAlerts(t)
	for _, a := range alerts {
		held := alertNameMatcher(t, stale.Target[0]).MatchString(a)
		if want := !slices.Contains(prober, a); held != want {
			t.Errorf("%s held back by LLMProberTargetStale: %v, want %v", a, held, want)
		}
		if held, want := alertNameMatcher(t, down.Target[0]).MatchString(a), a == "LLMProberTargetStale" || a == "LLMProberReplicaMissing"; held != want {
			t.Errorf("%s held back by LLMProberDown: %v, want %v", a, held, want)
		}
		if held, want := alertNameMatcher(t, replica.Target[0]).MatchString(a), a == "LLMProberTargetStale"; held != want {
			t.Errorf("%s held back by LLMProberReplicaMissing: %v, want %v", a, held, want)
		}
	}
	if !alertNameMatcher(t, stale.Source[0]).MatchString("LLMProberTargetStale") || !slices.Equal(stale.Equal, []string{"target"}) {
		t.Errorf("stale rule %+v", stale)
	}
	if !alertNameMatcher(t, down.Source[0]).MatchString("LLMProberDown") || !slices.Equal(down.Equal, []string{"job"}) {
		t.Errorf("down rule %+v", down)
	}
	if !alertNameMatcher(t, replica.Source[0]).MatchString("LLMProberReplicaMissing") || !slices.Equal(replica.Equal, []string{"job"}) {
		t.Errorf("replica rule %+v", replica)
	}
	if len(alerts) != 10 {
		t.Errorf("the rule file has %d alerts: %v", len(alerts), alerts)
	}
}

// alertmanagerBinary returns Debian's prometheus-alertmanager, or skips
// (fails with LLMPROBER_REQUIRE_INTEGRATION=1) without it.
func alertmanagerBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus-alertmanager")
	if err != nil {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("prometheus-alertmanager not found (Debian package prometheus-alertmanager)")
		}
		t.Skip("prometheus-alertmanager not found")
	}
	return p
}

// TestAlertmanagerInhibits runs a real Alertmanager with the bundled
// configuration, posts the alerts of a dead prober and of a live one, and
// checks which it holds back: the page of the stale target and the stale
// alert of the dead job are suppressed, the page of a target still
// reported is not.
func TestAlertmanagerInhibits(t *testing.T) {
	bin := alertmanagerBinary(t)
	if out, err := exec.Command(filepath.Join(filepath.Dir(bin), "amtool"), "check-config", alertmanagerConfig).CombinedOutput(); err != nil {
		t.Fatalf("amtool check-config: %v\n%s", err, out)
	}
	base := startAlertmanager(t, bin)
	at := time.Now().UTC().Format(time.RFC3339)
	alert := func(labels map[string]string) map[string]any {
		return map[string]any{"labels": labels, "startsAt": at}
	}
	posted, err := json.Marshal([]map[string]any{
		alert(map[string]string{"alertname": "LLMProberDown", "job": "llmprober", "severity": "page"}),
		alert(map[string]string{"alertname": "LLMProberTargetStale", "job": "llmprober", "target": "gone", "severity": "ticket"}),
		alert(map[string]string{"alertname": "LLMProberSLOBurnRatePage", "target": "gone", "objective": "default", "severity": "page"}),
		alert(map[string]string{"alertname": "LLMProberSLOBurnRatePage", "target": "live", "objective": "default", "severity": "page"}),
		// A replica of job "otlp-eu" stopped among others: one ticket, its
		// lone target's stale ticket held back.
		alert(map[string]string{"alertname": "LLMProberReplicaMissing", "job": "otlp-eu", "severity": "ticket"}),
		alert(map[string]string{"alertname": "LLMProberTargetStale", "job": "otlp-eu", "target": "lone", "severity": "ticket"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(base+"/api/v2/alerts", "application/json", bytes.NewReader(posted))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("posting alerts: %s", resp.Status)
	}
	want := map[string]string{"LLMProberDown/": "active", "LLMProberTargetStale/gone": "suppressed",
		"LLMProberSLOBurnRatePage/gone": "suppressed", "LLMProberSLOBurnRatePage/live": "active",
		"LLMProberReplicaMissing/": "active", "LLMProberTargetStale/lone": "suppressed"}
	var got map[string]string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = alertStates(t, base)
		if fmt.Sprint(got) == fmt.Sprint(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("alert states %v, want %v", got, want)
	}
}

// alertStates returns the state of every alert Alertmanager holds, keyed
// by alertname/target.
func alertStates(t *testing.T, base string) map[string]string {
	t.Helper()
	resp, err := http.Get(base + "/api/v2/alerts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var alerts []struct {
		Labels map[string]string `json:"labels"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&alerts); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range alerts {
		out[a.Labels["alertname"]+"/"+a.Labels["target"]] = a.Status.State
	}
	return out
}

// startAlertmanager starts bin with the bundled configuration on a free
// loopback port, without clustering, and waits until it is ready.
func startAlertmanager(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	logs := &syncBuffer{}
	cmd := exec.Command(bin, "--config.file="+alertmanagerConfig, "--storage.path="+t.TempDir(),
		"--web.listen-address="+addr, "--cluster.listen-address=", "--log.level=warn")
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/-/ready")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case <-exited:
			t.Fatalf("alertmanager exited: %v\n%s", waitErr, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("alertmanager not ready:\n%s", strings.TrimSpace(logs.String()))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
