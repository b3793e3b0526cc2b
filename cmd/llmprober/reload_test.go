package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// reloadTarget is one target of the reload tests: the simulated endpoint
// at base, rate requests per second, with extra YAML lines.
func reloadTarget(name, base string, rate float64, extra ...string) string {
	s := fmt.Sprintf(`  - name: %s
    base_url: %s/v1
    model: sim-model
    timeout: 2s
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: 8}
    schedule: {rate: %g, max_concurrency: 4}
`, name, base, rate)
	for _, e := range extra {
		s += "    " + e + "\n"
	}
	return s
}

// reloadConfig is a configuration of targets (reloadTarget texts).
func reloadConfig(targets ...string) string {
	return "windows: [1m]\nwarmup: 0s\ntargets:\n" + strings.Join(targets, "")
}

// rewrite replaces the configuration file at path at once.
func rewrite(t *testing.T, path, content string) {
	t.Helper()
	// Written beside it and renamed over it, as a ConfigMap's symbolic link
	// is swapped: os.WriteFile truncates first, and a poll between the two
	// would read an empty file.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// postReload sends POST /-/reload, without a body, and returns the status
// and body.
func (r *running) postReload(t *testing.T) (int, string) {
	t.Helper()
	resp, err := http.Post(r.base+"/-/reload", "", nil)
	if err != nil {
		t.Fatalf("POST /-/reload: %v", err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = fmt.Fprint(&b, readAll(resp))
	return resp.StatusCode, b.String()
}

// readAll reads a response body as text.
func readAll(resp *http.Response) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// requests is llmprober_requests_total of target, every outcome.
func requests(fams map[string]*dto.MetricFamily, target string) float64 {
	return counter(fams, "llmprober_requests_total", map[string]string{"target": target})
}

// windowRequests is the number of requests of target's 1m window in the
// JSON API, and whether the target is listed.
func windowRequests(t *testing.T, r *running, target string) (int64, bool) {
	t.Helper()
	_, body := r.get(t, "/api/v1/targets")
	var v struct {
		Targets []struct {
			Name    string `json:"name"`
			Windows []struct {
				Requests map[string]int64 `json:"requests"`
			} `json:"windows"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("/api/v1/targets: %v\n%s", err, body)
	}
	for _, tg := range v.Targets {
		if tg.Name == target {
			if len(tg.Windows) == 0 {
				return 0, true
			}
			return tg.Windows[0].Requests["all"], true
		}
	}
	return 0, false
}

// targetInText reports whether any series of the exposition carries
// target="name".
func targetInText(body, name string) bool {
	return strings.Contains(body, `target="`+name+`"`)
}

// TestReloadReconciles runs the daemon against the simulated endpoint and
// reloads five times by POST /-/reload (with --web.enable-lifecycle): the
// unchanged target keeps probing and its counters and window counts only
// grow; the added one
// appears with every counter at 0 and probes; the removed one's series
// leave /metrics and the API; a changed schedule keeps counters and
// windows; an invalid file keeps everything and reports 0.
func TestReloadReconciles(t *testing.T) {
	s := startSim(t)
	keep, gone := reloadTarget("keep", s.URL(), 20), reloadTarget("gone", s.URL(), 20)
	path := writeFile(t, "c.yml", reloadConfig(keep, gone))
	r := startRun(t, []string{"run", "--config", path, "--listen-address", "127.0.0.1:0", "--web.enable-lifecycle"}, nil)
	eventually(t, 20*time.Second, "requests of both targets", func() bool {
		fams, _ := r.scrape(t)
		return requests(fams, "keep") >= 3 && requests(fams, "gone") >= 3
	})
	fams, _ := r.scrape(t)
	if v, ok := gauge(fams, "llmprober_config_last_reload_successful", nil); !ok || v != 1 {
		t.Errorf("last_reload_successful at start = %v (present %v), want 1", v, ok)
	}
	for _, o := range []string{"success", "failure"} {
		if v := counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": o}); v != 0 {
			t.Errorf("reloads_total{outcome=%q} at start = %v, want 0", o, v)
		}
	}

	resp, err := http.Get(r.base + "/-/reload")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost {
		t.Errorf("GET /-/reload: %d, Allow %q; want 405, POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if code, body := r.get(t, "/config"); code != http.StatusOK || !strings.Contains(body, "name: keep") || !strings.Contains(body, "name: gone") {
		t.Errorf("/config: %d\n%s", code, body)
	}
	if _, body := r.get(t, "/"); !strings.Contains(body, `<a href="/config">Configuration</a>`) {
		t.Error("the landing page does not link /config")
	}

	// 1: remove gone, add fresh (its probes wait at a closed port: no request finishes).
	fresh := fmt.Sprintf("  - name: fresh\n    base_url: http://%s/v1\n    model: m\n    readiness: {path: /health, interval: 1h}\n    schedule: {rate: 1}\n", closedPort(t))
	before, _ := r.scrape(t)
	beforeWindow, _ := windowRequests(t, r, "keep")
	rewrite(t, path, reloadConfig(keep, fresh))
	if code, body := r.postReload(t); code != http.StatusOK {
		t.Fatalf("reload 1: %d %s", code, body)
	}
	fams, body := r.scrape(t)
	if targetInText(body, "gone") {
		t.Errorf("series of the removed target remain:\n%s", grepLines(body, `target="gone"`))
	}
	if _, listed := windowRequests(t, r, "gone"); listed {
		t.Error("the removed target is still in /api/v1/targets")
	}
	if v := requests(fams, "fresh"); v != 0 || !targetInText(body, "fresh") {
		t.Errorf("added target: requests %v, series present %v; want 0 and present", v, targetInText(body, "fresh"))
	}
	for _, name := range []string{"llmprober_probes_scheduled_total", "llmprober_probes_dropped_total"} {
		if v := counter(fams, name, map[string]string{"target": "fresh"}); v != 0 {
			t.Errorf("added target: %s = %v, want 0", name, v)
		}
	}
	if v, _ := gauge(fams, "llmprober_target_state", map[string]string{"target": "fresh", "state": "waiting"}); v != 1 {
		t.Errorf("added target's state waiting = %v, want 1 (at its start-up gate)", v)
	}
	checkGrows(t, r, before, beforeWindow)
	if _, body := r.get(t, "/config"); strings.Contains(body, "name: gone") || !strings.Contains(body, "name: fresh") {
		t.Errorf("/config after the reload:\n%s", body)
	}

	// 2: change keep's schedule: counters and windows continue.
	before, _ = r.scrape(t)
	beforeWindow, _ = windowRequests(t, r, "keep")
	rewrite(t, path, reloadConfig(reloadTarget("keep", s.URL(), 25), fresh))
	if code, body := r.postReload(t); code != http.StatusOK {
		t.Fatalf("reload 2: %d %s", code, body)
	}
	checkGrows(t, r, before, beforeWindow)

	// 3: an invalid file: nothing changes, 400 with the error, gauge 0.
	before, _ = r.scrape(t)
	beforeWindow, _ = windowRequests(t, r, "keep")
	rewrite(t, path, reloadConfig(reloadTarget("keep", s.URL(), -1), fresh))
	code, text := r.postReload(t)
	if code != http.StatusBadRequest || !strings.Contains(text, "c.yml:10: targets[0].schedule.rate") {
		t.Errorf("invalid reload: %d %q, want 400 naming the file, line 10 and targets[0].schedule.rate", code, text)
	}
	fams, _ = r.scrape(t)
	if v, _ := gauge(fams, "llmprober_config_last_reload_successful", nil); v != 0 {
		t.Errorf("last_reload_successful after a failed reload = %v, want 0", v)
	}
	checkGrows(t, r, before, beforeWindow)

	// 4: a deleted file fails too; 5: a valid file (the last good one) reloads.
	_ = os.Remove(path)
	if code, _ := r.postReload(t); code != http.StatusBadRequest {
		t.Errorf("reload of a deleted file answered %d, want 400", code)
	}
	before, _ = r.scrape(t)
	beforeWindow, _ = windowRequests(t, r, "keep")
	rewrite(t, path, reloadConfig(reloadTarget("keep", s.URL(), 25), fresh))
	if code, body := r.postReload(t); code != http.StatusOK {
		t.Fatalf("reload 5: %d %s", code, body)
	}
	fams, _ = r.scrape(t)
	want := map[string]float64{"success": 3, "failure": 2}
	for o, n := range want {
		if v := counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": o}); v != n {
			t.Errorf("reloads_total{outcome=%q} = %v, want %v", o, v, n)
		}
	}
	if v, _ := gauge(fams, "llmprober_config_last_reload_successful", nil); v != 1 {
		t.Errorf("last_reload_successful after the good reload = %v, want 1", v)
	}
	checkGrows(t, r, before, beforeWindow)
	// The unchanged checksum: nothing happens, nothing is counted.
	if code, _ := r.postReload(t); code != http.StatusOK {
		t.Errorf("reload of an unchanged file answered %d", code)
	}
	fams, _ = r.scrape(t)
	if v := counter(fams, "llmprober_config_reloads_total", nil); v != 5 {
		t.Errorf("reloads after an unchanged one = %v, want 5", v)
	}
	if !strings.Contains(r.stderr.String(), "target changed; its counters and windows continue") ||
		!strings.Contains(r.stderr.String(), "target removed") || !strings.Contains(r.stderr.String(), "target added") {
		t.Errorf("log lacks the reconciliation lines:\n%s", r.stderr.String())
	}
}

// checkGrows waits until keep's requests and window count exceed before's.
func checkGrows(t *testing.T, r *running, before map[string]*dto.MetricFamily, window int64) {
	t.Helper()
	n := requests(before, "keep")
	eventually(t, 20*time.Second, "keep's requests to grow", func() bool {
		fams, _ := r.scrape(t)
		w, _ := windowRequests(t, r, "keep")
		return requests(fams, "keep") > n && w > window
	})
}

// grepLines returns the lines of text containing s.
func grepLines(text, s string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// --config.auto-reload-interval reloads a changed file without a signal,
// once per distinct content: a bad file fails once, not at every poll.
func TestAutoReload(t *testing.T) {
	s := startSim(t)
	path := writeFile(t, "c.yml", reloadConfig(reloadTarget("a", s.URL(), 5)))
	r := startRun(t, []string{"run", "--config", path, "--listen-address", "127.0.0.1:0", "--config.auto-reload-interval", "50ms"}, nil)
	rewrite(t, path, reloadConfig(reloadTarget("a", s.URL(), 5), reloadTarget("b", s.URL(), 5)))
	eventually(t, 20*time.Second, "b added by polling", func() bool {
		_, body := r.scrape(t)
		return targetInText(body, "b")
	})
	rewrite(t, path, "targets: [")
	eventually(t, 20*time.Second, "the bad file's failure", func() bool {
		fams, _ := r.scrape(t)
		return counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": "failure"}) == 1
	})
	time.Sleep(300 * time.Millisecond) // six polls more
	fams, _ := r.scrape(t)
	if n := counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": "failure"}); n != 1 {
		t.Errorf("failures after polling the same bad file = %v, want 1", n)
	}
	if n := counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": "success"}); n != 1 {
		t.Errorf("successes = %v, want 1", n)
	}
}
