//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The cases of the fault matrix that need a process of their own: a
// limit on open files, or signals. The test binary runs itself with
// FAULTMATRIX_HELPER set to the case's name.

const helperVar = "FAULTMATRIX_HELPER"

// helper runs the test binary as the helper mode and returns a reader of
// its standard output and a writer to its standard input.
func helper(t *testing.T, mode string) (*bufio.Reader, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultMatrixHelper$", "-test.v")
	cmd.Env = append(os.Environ(), helperVar+"="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper %s: %v\n%s", mode, err, stderr.String())
		}
	})
	return bufio.NewReader(out), in
}

// expectLine reads the helper's output until a line starting with prefix
// and returns the rest of it.
func expectLine(t *testing.T, r *bufio.Reader, prefix string) string {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("helper ended before %q: %v", prefix, err)
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
}

// TestFaultMatrixHelper is the helper process; it does nothing in a
// normal test run.
func TestFaultMatrixHelper(t *testing.T) {
	switch os.Getenv(helperVar) {
	case "":
		t.Skip("only run as a helper process")
	case "exhaust":
		helperExhaust(t)
	case "fdcap":
		helperFDCap(t)
	}
}

// setFileLimit lowers the soft limit on open files to n.
func setFileLimit(t *testing.T, n uint64) {
	t.Helper()
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	l.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
}

// helperRun starts llmprober with an HTTP target of the sim at rate
// (and a realtime one when realtime is set) and prints its base URL.
func helperRun(t *testing.T, rate string, realtime bool) *running {
	t.Helper()
	s := startSim(t)
	cfg := fmt.Sprintf("targets:\n  - name: http\n    base_url: %s/v1\n    model: sim-model\n    readiness: {path: none}\n"+
		"    objectives: [{name: default, latency: 10s}]\n    schedule: {rate: %s, max_concurrency: 4}\n", s.URL(), rate)
	if realtime {
		cfg += fmt.Sprintf("  - name: rt\n    base_url: %s/v1\n    model: sim-model\n    backend: openai_websocket\n"+
			"    readiness: {path: none}\n    realtime: {audio_duration: 100ms, pacing: fast}\n    schedule: {rate: 50}\n", s.URL())
	}
	r := startRun(t, []string{"run", "--config", writeFile(t, "c.yml", cfg), "--listen-address", "127.0.0.1:0"}, nil)
	fmt.Printf("BASE %s\n", r.base)
	return r
}

// helperExhaust: once probing, the process's open files run out; the
// requests it then cannot send are the prober's (incomplete, prober),
// never the targets' errors; once files are free again it reports.
func helperExhaust(t *testing.T) {
	setFileLimit(t, 256)
	// One HTTP request each 2.5 s: no kept-alive connection is left to
	// reuse (they close after 2 s), so each request needs a new one.
	r := helperRun(t, "0.4", true)
	eventually(t, 20*time.Second, "a successful request per target", func() bool {
		fams, _ := r.scrape(t)
		return counter(fams, "llmprober_requests_total", map[string]string{"target": "http", "outcome": "successful"}) >= 1 &&
			counter(fams, "llmprober_requests_total", map[string]string{"target": "rt", "outcome": "successful"}) >= 1
	})
	fams, _ := r.scrape(t)
	http.DefaultClient.CloseIdleConnections()
	errored0 := counter(fams, "llmprober_requests_total", map[string]string{"outcome": "errored"})
	evaluated0 := counter(fams, "llmprober_slo_requests_evaluated_total", nil)
	// Hold every free descriptor for 5 s at a time (two requests of each
	// target cannot be sent), freeing a few between holds to look, until
	// both targets recorded such a failure (at most four holds, for a
	// loaded machine).
	for range 4 {
		held := holdFiles()
		time.Sleep(5 * time.Second)
		for _, f := range held {
			_ = f.Close()
		}
		fams, _ = r.scrape(t)
		sel := map[string]string{"outcome": "incomplete", "error_type": "prober"}
		if counter(fams, "llmprober_requests_total", withTarget(sel, "http")) > 0 &&
			counter(fams, "llmprober_requests_total", withTarget(sel, "rt")) > 0 {
			break
		}
	}
	for _, target := range []string{"http", "rt"} {
		sel := map[string]string{"target": target, "outcome": "incomplete", "error_type": "prober"}
		fmt.Printf("PROBER %s %v\n", target, counter(fams, "llmprober_requests_total", sel))
	}
	fmt.Printf("ERRORED %v\n", counter(fams, "llmprober_requests_total", map[string]string{"outcome": "errored"})-errored0)
	fmt.Printf("EVALUATED %v %v\n", evaluated0, counter(fams, "llmprober_slo_requests_evaluated_total", nil))
	_ = r.stop()
	fmt.Printf("LOG %v\n", strings.Contains(r.stderr.String(), "llmprober itself is out of a resource"))
}

// holdFiles opens /dev/null until no descriptor is left and returns the
// files.
func holdFiles() []*os.File {
	var held []*os.File
	for {
		f, err := os.Open("/dev/null")
		if err != nil {
			return held
		}
		held = append(held, f)
	}
}

// withTarget returns sel with the target label set.
func withTarget(sel map[string]string, target string) map[string]string {
	out := map[string]string{"target": target}
	for k, v := range sel {
		out[k] = v
	}
	return out
}

// helperFDCap: with 256 open files allowed, the HTTP server accepts only
// its share; the parent floods it with idle connections while the
// probes go on.
func helperFDCap(t *testing.T) {
	setFileLimit(t, 256)
	// The realtime target opens a connection per request.
	r := helperRun(t, "50", true)
	fams, _ := r.scrape(t)
	http.DefaultClient.CloseIdleConnections()
	before := counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"})
	fmt.Println("READY")
	in := bufio.NewReader(os.Stdin)
	_, _ = in.ReadString('\n') // the parent's flood ended
	fams, _ = r.scrape(t)
	fmt.Printf("SUCCESSFUL %v\n", counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"})-before)
	fmt.Printf("FAILED %v\n", counter(fams, "llmprober_requests_total", nil)-
		counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"}))
	_ = r.stop()
}

// Running out of open files while probing makes requests incomplete with
// error type prober, for the HTTP and the realtime backend alike: not
// errored, not evaluated against the SLO, and logged.
func TestFaultMatrixProberExhaustion(t *testing.T) {
	out, _ := helper(t, "exhaust")
	expectLine(t, out, "BASE")
	for _, target := range []string{"http", "rt"} {
		if n := expectLine(t, out, "PROBER "+target); n == "0" {
			t.Errorf("%s: no request was recorded as the prober's own failure", target)
		}
	}
	if n := expectLine(t, out, "ERRORED"); n != "0" {
		t.Errorf("%s requests errored while the prober had no files; want 0", n)
	}
	var before, after float64
	if _, err := fmt.Sscan(expectLine(t, out, "EVALUATED"), &before, &after); err != nil || after-before > 60 {
		t.Errorf("evaluated %v then %v: the prober's failures must not be evaluated", before, after)
	}
	if logged := expectLine(t, out, "LOG"); logged != "true" {
		t.Error("the prober's exhaustion was not logged")
	}
}

// With few open files allowed, a flood of idle connections to the HTTP
// server takes none of the descriptors the probes need: every request
// made meanwhile succeeds.
func TestFaultMatrixConnectionFlood(t *testing.T) {
	out, in := helper(t, "fdcap")
	addr := strings.TrimPrefix(expectLine(t, out, "BASE"), "http://")
	expectLine(t, out, "READY")
	var flood []net.Conn
	for range 400 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", len(flood), err)
		}
		flood = append(flood, c)
	}
	time.Sleep(3 * time.Second)
	for _, c := range flood {
		_ = c.Close()
	}
	_, _ = io.WriteString(in, "\n")
	if n := expectLine(t, out, "SUCCESSFUL"); n == "0" {
		t.Error("no request succeeded during the flood")
	}
	if n := expectLine(t, out, "FAILED"); n != "0" {
		t.Errorf("%s requests failed during the flood; want 0", n)
	}
}

// buildBinary builds llmprober once for the tests that need a process.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "llmprober-bin")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "llmprober")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

// startBinary starts the built llmprober with args and returns it and its
// HTTP address, once it listens.
func startBinary(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, string) {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var base string
	eventually(t, 20*time.Second, "the address", func() bool {
		m := metricsURL.FindStringSubmatch(stdout.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	return cmd, &stderr, strings.TrimPrefix(base, "http://")
}

// trickle opens a connection to addr that sends a request body a byte at
// a time, holding the HTTP server's shutdown.
func trickle(t *testing.T, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n")
	go func() {
		for {
			if _, err := c.Write([]byte("x")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond)
}

// SIGTERM ends the process: at once with a second SIGTERM while a slow
// client holds the HTTP server's shutdown, and cleanly (status 0) within
// the server's bound with one.
func TestFaultMatrixSignals(t *testing.T) {
	s := startSim(t)
	cfg := writeFile(t, "c.yml", fmt.Sprintf("targets:\n  - name: a\n    base_url: %s/v1\n    model: sim-model\n"+
		"    readiness: {path: none}\n    schedule: {rate: 20}\n", s.URL()))
	for _, tc := range []struct {
		name    string
		signals int
		within  time.Duration
		status  func(*os.ProcessState) bool
	}{
		{"one signal: clean exit after the HTTP bound", 1, 9 * time.Second, func(ps *os.ProcessState) bool { return ps.ExitCode() == 0 }},
		{"a second signal: killed at once", 2, 3 * time.Second, func(ps *os.ProcessState) bool {
			ws, ok := ps.Sys().(syscall.WaitStatus)
			return ok && ws.Signaled() && ws.Signal() == syscall.SIGTERM
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, stderr, addr := startBinary(t, "run", "--config", cfg, "--listen-address", "127.0.0.1:0")
			trickle(t, addr)
			start := time.Now()
			for range tc.signals {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				time.Sleep(300 * time.Millisecond)
			}
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done: // the status is checked below
			case <-time.After(tc.within + 5*time.Second):
				t.Fatalf("still running %v after SIGTERM", time.Since(start))
			}
			if d := time.Since(start); d > tc.within || !tc.status(cmd.ProcessState) {
				t.Errorf("ended after %v with %v; want within %v and the expected status\n%s", d, cmd.ProcessState, tc.within, stderr.String())
			}
		})
	}
}

// check never hangs on a named pipe, as a process either.
func TestFaultMatrixCheckFIFOProcess(t *testing.T) {
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	fifo, _, _ := hostileFiles(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "check", "--config", fifo).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "named pipe") {
		t.Errorf("check on a named pipe: %v\n%s", err, out)
	}
}
