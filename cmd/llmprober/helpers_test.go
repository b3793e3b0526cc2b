package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/testsupport"
)

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer = testsupport.SyncBuffer

// running is an llmprober started with Run in the test's process.
type running struct {
	base           string
	stdout, stderr *syncBuffer
	stop           func() error
}

var metricsURL = regexp.MustCompile(`metrics:\s+(http://\S+)/metrics`)

// startRun runs llmprober with args and env until the returned stop is called;
// it waits until the HTTP server prints its address.
func startRun(t *testing.T, args []string, env map[string]string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, args, r.stdout, r.stderr, env) }()
	r.stop = sync.OnceValue(func() error { cancel(); return <-done })
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := metricsURL.FindStringSubmatch(r.stdout.String()); m != nil {
			r.base = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("llmprober exited early: %v\nstderr:\n%s", err, r.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = r.stop()
			t.Fatalf("llmprober printed no address; stderr:\n%s", r.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() { _ = r.stop(); http.DefaultClient.CloseIdleConnections() })
	return r
}

// get fetches path from the running llmprober.
func (r *running) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(r.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// scrape returns the parsed metric families of /metrics and the raw text.
func (r *running) scrape(t *testing.T) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	code, body := r.get(t, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics answered %d", code)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("could not parse /metrics: %v", err)
	}
	return fams, body
}

// eventually polls cond every 50 ms until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// labelsMatch reports whether m carries every label of want.
func labelsMatch(m *dto.Metric, want map[string]string) bool {
	n := 0
	for _, lp := range m.GetLabel() {
		if v, ok := want[lp.GetName()]; ok {
			if v != lp.GetValue() {
				return false
			}
			n++
		}
	}
	return n == len(want)
}

// counter sums the counter samples of family name whose labels match want.
func counter(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	var sum float64
	for _, m := range fams[name].GetMetric() {
		if labelsMatch(m, want) {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// histogram sums count and sum of the histogram samples of family name whose labels match want.
func histogram(fams map[string]*dto.MetricFamily, name string, want map[string]string) (count uint64, sum float64) {
	for _, m := range fams[name].GetMetric() {
		if labelsMatch(m, want) {
			count += m.GetHistogram().GetSampleCount()
			sum += m.GetHistogram().GetSampleSum()
		}
	}
	return count, sum
}

// writeFile writes content to name in a temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// isCanceled reports whether err is nil or a context cancellation (a normal stop).
func isCanceled(err error) bool { return err == nil || errors.Is(err, context.Canceled) }

// rawHTTP serves every connection on a loopback listener with answer.
var rawHTTP = testsupport.RawHTTP
