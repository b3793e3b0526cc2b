package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestStopGrace(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2000"}
	for _, tt := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"run"}, 5*time.Second + 2*time.Second + 5*time.Second},
		{[]string{"demo"}, 12 * time.Second},
		{[]string{"check", "--config", "x"}, 0},
		{[]string{"rules"}, 0},
		{nil, 0},
	} {
		if got := stopGrace(tt.args, getenv(env)); got != tt.want {
			t.Errorf("stopGrace(%v) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

// otlpReceiver counts the OTLP/HTTP metric exports it receives.
func otlpReceiver(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/metrics" {
			n.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// A client trickling a request body holds the HTTP server's shutdown only
// for its own bound (5 s), after which it is cut; the final OTLP flush
// still goes out and the run ends without error.
func TestShutdownCutsSlowClientAndFlushes(t *testing.T) {
	s := startSim(t)
	rcv, exports := otlpReceiver(t)
	cfg := writeFile(t, "c.yml", fmt.Sprintf(`targets:
  - name: a
    base_url: %s/v1
    model: sim-model
    readiness: {path: none}
    schedule: {rate: 20}
`, s.URL()))
	// The OTLP exporter reads the process environment itself.
	env := map[string]string{
		"OTEL_METRICS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL,
		"OTEL_METRIC_EXPORT_INTERVAL": "3600000", "OTEL_EXPORTER_OTLP_TIMEOUT": "2000",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	r := startRun(t, []string{"run", "--config", cfg, "--listen-address", "127.0.0.1:0"}, env)
	c, err := net.Dial("tcp", strings.TrimPrefix(r.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := c.Write([]byte("x")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	time.Sleep(200 * time.Millisecond) // the 405 is answered, its body still trickles in
	start := time.Now()
	if err := r.stop(); !isCanceled(err) {
		t.Fatalf("run: %v\n%s", err, r.stderr.String())
	}
	if d := time.Since(start); d > 9*time.Second {
		t.Errorf("shutdown took %v; want the HTTP bound (5s) plus the flush", d)
	}
	if exports.Load() == 0 {
		t.Errorf("no final OTLP flush reached the receiver; stderr:\n%s", r.stderr.String())
	}
	if !strings.Contains(r.stderr.String(), "closing HTTP connections still busy at shutdown") {
		t.Errorf("no warning about the cut client; stderr:\n%s", r.stderr.String())
	}
}
