//go:build linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fault matrix's cases of reloading: one per fault.

// simTargets is a configuration of n targets of the simulated endpoint at
// base, each at rate requests per second and max_concurrency 1.
func simTargets(base string, n int, rate string) string {
	var b strings.Builder
	b.WriteString("targets:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: t%02d, base_url: %s/v1, model: sim-model, readiness: {path: none}, schedule: {rate: %s, max_concurrency: 1}}\n",
			i, base, rate)
	}
	return b.String()
}

// The configuration file replaced by a named pipe: 200 POST /-/reload
// each answer 400 naming the pipe (none waits for a writer, none holds a
// connection), /metrics and /-/healthy answer, one reload failure is
// counted per POST, and SIGTERM still ends the process cleanly (status 0,
// after the final flush).
func TestFaultMatrixReloadNamedPipe(t *testing.T) {
	s := startSim(t)
	path := writeFile(t, "c.yml", simTargets(s.URL(), 1, "2"))
	cmd, stderr, addr := startBinary(t, "run", "--config", path, "--listen-address", "127.0.0.1:0")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 200 {
		resp, err := client.Post("http://"+addr+"/-/reload", "text/plain", nil)
		if err != nil {
			t.Fatalf("POST %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if want := "configuration file is not a regular file (it is a named pipe)"; resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), want) {
			t.Fatalf("POST %d = %d %q; want 400 with %q", i, resp.StatusCode, body, want)
		}
	}
	for _, p := range []string{"/-/healthy", "/metrics"} {
		resp, err := client.Get("http://" + addr + p)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s after the POSTs: %v %v", p, resp, err)
		}
		if p == "/metrics" {
			body, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(body), `llmprober_config_reloads_total{outcome="failure"} 200`) {
				t.Errorf("/metrics does not count 200 failed reloads")
			}
		}
		_ = resp.Body.Close()
	}
	client.CloseIdleConnections()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || cmd.ProcessState.ExitCode() != 0 || !strings.Contains(stderr.String(), "stopped probing") {
			t.Errorf("after SIGTERM: %v, status %d; want 0 after stopping\n%s", err, cmd.ProcessState.ExitCode(), stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("still running 15 s after SIGTERM\n%s", stderr.String())
	}
}

// Polling: after a failed reload, the file put back as it runs is loaded
// (last successful back to 1), a deleted file and a directory at its
// path are warned about once and not counted, and a file back is loaded.
func TestFaultMatrixReloadPolling(t *testing.T) {
	s := startSim(t)
	good := simTargets(s.URL(), 1, "2")
	path := writeFile(t, "c.yml", good)
	r := startRun(t, []string{"run", "--config", path, "--listen-address", "127.0.0.1:0", "--config.auto-reload-interval", "20ms"}, nil)
	last := func() float64 {
		fams, _ := r.scrape(t)
		v, _ := gauge(fams, "llmprober_config_last_reload_successful", nil)
		return v
	}
	rewrite(t, path, good+"bogus: 1\n")
	eventually(t, 20*time.Second, "the bad edit's failure", func() bool { return last() == 0 })
	rewrite(t, path, good)
	eventually(t, 20*time.Second, "the reverted file loaded", func() bool { return last() == 1 })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	warning := `level=WARN msg="no configuration file to poll; the running configuration stays until one is back"`
	eventually(t, 20*time.Second, "the warning", func() bool { return strings.Contains(r.stderr.String(), warning) })
	time.Sleep(200 * time.Millisecond) // ten polls more
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	rewrite(t, path, simTargets(s.URL(), 2, "2"))
	eventually(t, 20*time.Second, "the file back loaded", func() bool {
		_, body := r.scrape(t)
		return targetInText(body, "t01")
	})
	fams, _ := r.scrape(t)
	failed := counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": "failure"})
	ok := counter(fams, "llmprober_config_reloads_total", map[string]string{"outcome": "success"})
	if n := strings.Count(r.stderr.String(), warning); n != 1 || failed != 1 || ok != 2 {
		t.Errorf("%d warnings, %v failed and %v successful reloads; want 1, 1 (the bad edit) and 2 (the revert, the file back)\n%s",
			n, failed, ok, r.stderr.String())
	}
}
