//go:build linux

package main

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// getText fetches url and returns its body, "" on any error.
func getText(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// The built binary reloads on SIGHUP: the removed target leaves /metrics
// and the JSON API, the added one probes, the log says what changed; a
// bad file on the next SIGHUP is logged and sets the gauge to 0 while the
// old targets go on; SIGTERM still ends it cleanly.
func TestReloadBinarySIGHUP(t *testing.T) {
	s := startSim(t)
	path := writeFile(t, "c.yml", reloadConfig(reloadTarget("keep", s.URL(), 20), reloadTarget("gone", s.URL(), 20)))
	cmd, stderr, addr := startBinary(t, "run", "--config", path, "--listen-address", "127.0.0.1:0")
	base := "http://" + addr
	eventually(t, 20*time.Second, "requests of both targets", func() bool {
		m := getText(base + "/metrics")
		return strings.Contains(m, `llmprober_requests_total{outcome="successful",target="gone"}`) &&
			strings.Contains(m, `llmprober_requests_total{outcome="successful",target="keep"}`)
	})
	rewrite(t, path, reloadConfig(reloadTarget("keep", s.URL(), 20), reloadTarget("fresh", s.URL(), 20)))
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the reload and the added target's first success", func() bool {
		m := getText(base + "/metrics")
		return strings.Contains(m, `llmprober_config_reloads_total{outcome="success"} 1`) &&
			strings.Contains(m, `llmprober_requests_total{outcome="successful",target="fresh"}`) &&
			!strings.Contains(m, `llmprober_requests_total{outcome="successful",target="fresh"} 0`)
	})
	m := getText(base + "/metrics")
	if strings.Contains(m, `target="gone"`) {
		t.Errorf("series of the removed target remain:\n%s", grepLines(m, `target="gone"`))
	}
	api := getText(base + "/api/v1/targets")
	if strings.Contains(api, `"name": "gone"`) || !strings.Contains(api, `"name": "fresh"`) || !strings.Contains(api, `"name": "keep"`) {
		t.Errorf("/api/v1/targets after the reload: %s", api)
	}
	for _, want := range []string{"reloading the configuration on SIGHUP", `msg="target removed" target=gone`,
		`msg="target added" target=fresh`, `msg="configuration reloaded"`, "added=1 changed=0 removed=1 unchanged=1"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, stderr.String())
		}
	}

	rewrite(t, path, "targets: [{name: broken\n")
	_ = cmd.Process.Signal(syscall.SIGHUP)
	eventually(t, 20*time.Second, "the failed reload", func() bool {
		return strings.Contains(getText(base+"/metrics"), "llmprober_config_last_reload_successful 0")
	})
	if !strings.Contains(stderr.String(), "configuration reload failed; the running configuration stays") ||
		!strings.Contains(stderr.String(), "c.yml:1") {
		t.Errorf("log lacks the failure with file and line:\n%s", stderr.String())
	}
	before := getText(base + "/metrics")
	eventually(t, 20*time.Second, "keep and fresh still probing", func() bool {
		return getText(base+"/metrics") != before && strings.Contains(getText(base+"/api/v1/targets"), `"name": "fresh"`)
	})
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("still running 15 s after SIGTERM")
	}
}
