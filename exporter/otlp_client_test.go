package exporter

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
)

// TestOTLPHTTPRefusesRedirects: a receiver that answers 307 (which
// net/http would follow with the body and the OTLP headers) to another
// origin makes the export fail; the other origin receives nothing, and the
// token appears in no error.
func TestOTLPHTTPRefusesRedirects(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		elsewhere.Add(1)
	}))
	t.Cleanup(other.Close)
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/v1/metrics", code)
		}))
		getenv := setenv(t, map[string]string{
			"OTEL_METRICS_EXPORTER":               "otlp",
			"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": redirect.URL + "/v1/metrics",
			"OTEL_EXPORTER_OTLP_HEADERS":          "api-key=otlp-token-0123456789",
			"OTEL_METRIC_EXPORT_INTERVAL":         "3600000",
		})
		m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Getenv: getenv})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = m.Shutdown(ctx)
		cancel()
		redirect.Close()
		if err == nil || !strings.Contains(err.Error(), "failed to send") || strings.Contains(err.Error(), "otlp-token") {
			t.Errorf("%d: shutdown error %v, want a failed export without the token", code, err)
		}
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect's target received %d requests, want 0", n)
	}
}

// TestOTLPHTTPTLSFiles: the CA variable makes a receiver with a
// certificate of that CA trusted, and the export arrives; an unreadable CA
// file, a file without a certificate and a client certificate without its
// key are errors naming the variable, from ValidateEnv (check) as from
// NewMetrics (run).
func TestOTLPHTTPTLSFiles(t *testing.T) {
	r := &receiver{requests: make(chan *collectorpb.ExportMetricsServiceRequest, 16)}
	srv := httptest.NewTLSServer(r.handler())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, block, 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := setenv(t, map[string]string{
		"OTEL_METRICS_EXPORTER":               "otlp",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": srv.URL + "/v1/metrics",
		"OTEL_EXPORTER_OTLP_CERTIFICATE":      caFile,
		"OTEL_METRIC_EXPORT_INTERVAL":         "3600000",
	})
	m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatalf("export over TLS with the CA file: %v", err)
	}
	if byName, _ := otlpMetrics(receive(t, r)); byName[InstrumentBuildInfo] == nil {
		t.Errorf("the export over TLS lacks %s", InstrumentBuildInfo)
	}

	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("no certificate here"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE": filepath.Join(dir, "missing.pem")},
			"OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE: cannot read the CA file"},
		{map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": notPEM},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: no PEM certificate in the CA file"},
		{map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "", "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": caFile},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY must be set together"},
	} {
		getenv := setenv(t, tc.env)
		if err := ValidateEnv(getenv); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ValidateEnv(%v) = %v, want %q", tc.env, err, tc.want)
		}
		if _, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Getenv: getenv}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewMetrics(%v) = %v, want %q", tc.env, err, tc.want)
		}
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
}
