package exporter

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/llmprober/llmprober/probe/clock"
)

// planted is an OTLP token a hostile receiver echoes back.
const planted = "sk-PLANTED-0123456789abcdef"

// syncBuffer is a bytes.Buffer safe for the exporter's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOTLPErrorsRedactedAndRateLimited runs a receiver that rejects every
// export and echoes the request's Authorization header in its body. The
// log holds the first failure at once, redacted, and nothing more within
// the minute.
func TestOTLPErrorsRedactedAndRateLimited(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad token "+r.Header.Get("Authorization")+" and "+strings.Fields(r.Header.Get("Authorization"))[1], http.StatusBadRequest)
	}))
	defer srv.Close()
	getenv := setenv(t, map[string]string{
		"OTEL_METRICS_EXPORTER":               "otlp",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": srv.URL + "/v1/metrics",
		"OTEL_EXPORTER_OTLP_HEADERS":          "Authorization=Bearer%20" + url.PathEscape(planted),
		"OTEL_METRIC_EXPORT_INTERVAL":         "20",
	})
	var logs syncBuffer
	m, err := NewMetrics(context.Background(), Options{Getenv: getenv, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(m.HandleError))
	t.Cleanup(func() { otel.SetErrorHandler(prev) })
	deadline := time.Now().Add(10 * time.Second)
	for exportCounts(t, m)[exportFailure] < 5 {
		if time.Now().After(deadline) {
			t.Fatal("fewer than 5 failed exports in 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = m.Shutdown(context.Background())
	out := logs.String()
	if strings.Contains(out, "PLANTED") || strings.Count(out, "OpenTelemetry export failed") != 1 ||
		!strings.Contains(out, "bad token REDACTED and REDACTED") {
		t.Errorf("log, want one redacted line:\n%s", out)
	}
}

// TestErrorLogRateLimit: the first error at once, then at most one a
// minute, with the number held back.
func TestErrorLogRateLimit(t *testing.T) {
	var logs bytes.Buffer
	clk := clock.NewFake(t0)
	e := NewErrorLog(slog.New(slog.NewTextHandler(&logs, nil)), noEnv, clk.Now)
	for i := range 5 {
		e.Handle(errors.New("refused"))
		clk.Set(t0.Add(time.Duration(i+1) * 20 * time.Second)) // 20, 40, 60, 80, 100 s
	}
	// At 0 s logged; 20 and 40 s held; 60 s logged with 2 held; 80 s held.
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "similar_errors_not_logged=0") ||
		!strings.Contains(lines[1], "similar_errors_not_logged=2") {
		t.Errorf("lines:\n%s", logs.String())
	}
}

func TestOTLPSecrets(t *testing.T) {
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":          "api-key=abc%2Fdef,Authorization=Basic dXNlcjpwYXNzd29yZA==,broken",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS":  "x=short",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "https://user:hunter2hunter@collector:4318/v1/metrics",
	}
	got := otlpSecrets(func(k string) string { return env[k] })
	for _, want := range []string{"abc%2Fdef", "abc/def", "Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "short", "hunter2hunter", "user:hunter2hunter"} {
		found := false
		for _, s := range got {
			found = found || s == want
		}
		if !found {
			t.Errorf("secrets %q lack %q", got, want)
		}
	}
	r := NewErrorLog(nil, func(k string) string { return env[k] }, nil).redact
	if s := r.Bound("got abc/def and dXNlcjpwYXNzd29yZA== from user:hunter2hunter@collector"); strings.Contains(s, "abc/def") ||
		strings.Contains(s, "hunter2") || strings.Contains(s, "dXNlcjpw") {
		t.Errorf("redacted: %s", s)
	}
}

func TestLogLimiterKeys(t *testing.T) {
	clk := clock.NewFake(t0)
	l := NewLogLimiter[string](time.Minute, clk.Now)
	for _, k := range []string{"a", "b", "a", "a"} {
		l.Allow(k)
	}
	clk.Set(t0.Add(time.Minute))
	if held, ok := l.Allow("a"); !ok || held != 2 {
		t.Errorf("a after a minute = %d, %v; want 2 held, allowed", held, ok)
	}
	if held, ok := l.Allow("b"); !ok || held != 0 {
		t.Errorf("b = %d, %v; want 0 held, allowed", held, ok)
	}
}

// TestSDKLoggerRedacts: the SDK logs a header value it cannot decode;
// through SDKLogger the value is redacted.
func TestSDKLoggerRedacts(t *testing.T) {
	var logs bytes.Buffer
	getenv := func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "Authorization=" + planted + "%zz"}[k]
	}
	m, err := NewMetrics(context.Background(), Options{Getenv: getenv, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	m.SDKLogger().Error(errors.New("invalid URL escape"), "escape header value", "value", planted+"%zz",
		"nested", map[string]string{"v": planted + "%zz"})
	if out := logs.String(); strings.Contains(out, "PLANTED") || !strings.Contains(out, "value=REDACTED") {
		t.Errorf("log: %s", out)
	}
}
