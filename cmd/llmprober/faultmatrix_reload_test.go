//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The fault matrix's cases of reloading and of the limit on open files:
// one per fault.

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

// The configuration file replaced by a named pipe: 200 POST /-/reload (with
// --web.enable-lifecycle, without a Content-Type, as curl -X POST sends it)
// each answer 400 naming the pipe (none waits for a writer, none holds a
// connection), /metrics and /-/healthy answer, one reload failure is
// counted per POST, and SIGTERM still ends the process cleanly (status 0,
// after the final flush).
func TestFaultMatrixReloadNamedPipe(t *testing.T) {
	s := startSim(t)
	path := writeFile(t, "c.yml", simTargets(s.URL(), 1, "2"))
	cmd, stderr, addr := startBinary(t, "run", "--config", path, "--listen-address", "127.0.0.1:0", "--web.enable-lifecycle")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 200 {
		resp, err := client.Post("http://"+addr+"/-/reload", "", nil) // as curl -X POST: no body, no form's Content-Type
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

// fileLimitVar names the case of TestFaultMatrixFileLimitHelper to run.
const fileLimitVar = "FAULTMATRIX_NOFILE"

// TestFaultMatrixFileLimitHelper is the process of TestFaultMatrixFileLimit:
// it sets the limit on open files as its case says, runs llmprober with 50
// targets and prints what became of it; it does nothing in a normal test
// run.
func TestFaultMatrixFileLimitHelper(t *testing.T) {
	mode := os.Getenv(fileLimitVar)
	if mode == "" {
		t.Skip("only run as a helper process")
	}
	s := startSim(t)
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	l.Cur = 30
	if mode == "hard" {
		l.Max = 30
	}
	path := writeFile(t, "c.yml", simTargets(s.URL(), 50, "0.5"))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--config", path, "--listen-address", "127.0.0.1:0"}
	if mode == "hard" {
		code, out, _ := runBounded(t, args...)
		fmt.Printf("EXIT %d\nOUT %s\n", code, strings.ReplaceAll(out, "\n", " "))
		return
	}
	r := startRun(t, args, nil)
	fams, _ := r.scrape(t)
	fmt.Printf("SCRAPED %v\n", len(fams) > 0)
	_ = r.stop()
	fmt.Printf("LOG %s\n", strings.ReplaceAll(r.stderr.String(), "\n", " "))
}

// runFileLimitHelper runs TestFaultMatrixFileLimitHelper's case mode and
// returns its output.
func runFileLimitHelper(t *testing.T, mode string) *bufio.Reader {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultMatrixFileLimitHelper$", "-test.v")
	cmd.Env = append(os.Environ(), fileLimitVar+"="+mode)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", mode, err, out)
	}
	return bufio.NewReader(strings.NewReader(string(out)))
}

// With 30 open files allowed and 50 targets (which need at least 50 + 8 +
// 64 = 122, and 50 × (2·1 + 2) + 8 + 64 = 272 at their max_concurrency of
// 1): a hard limit of 30 refuses to start (status 1) naming both figures;
// a soft limit of 30 under a higher hard limit is raised to it, logged,
// and /metrics answers.
func TestFaultMatrixFileLimit(t *testing.T) {
	out := runFileLimitHelper(t, "hard")
	if code := expectLine(t, out, "EXIT"); code != "1" {
		t.Errorf("exit status %s; want 1", code)
	}
	want := "the limit on open files is 30 (hard limit 30), below the 122 that 50 targets need at least " +
		"(one connection each, 8 for the HTTP server, 64 for the process) and the 272 they need at their max_concurrency"
	if text := expectLine(t, out, "OUT"); !strings.Contains(text, want) {
		t.Errorf("output %q lacks %q", text, want)
	}
	out = runFileLimitHelper(t, "soft")
	if scraped := expectLine(t, out, "SCRAPED"); scraped != "true" {
		t.Error("/metrics did not answer")
	}
	if text := expectLine(t, out, "LOG"); !strings.Contains(text, `msg="raised the limit on open files to its hard limit" from=30`) {
		t.Errorf("the raise is not logged: %s", text)
	}
}
