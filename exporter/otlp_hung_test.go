package exporter

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/llmprober/llmprober/exporter/otlptest"
)

// emptyResourceMetrics is an export of nothing.
func emptyResourceMetrics() *metricdata.ResourceMetrics { return &metricdata.ResourceMetrics{} }

// hungCases are the receivers that never answer, by protocol.
var hungCases = []struct {
	name, protocol string
	addr           func(testing.TB) string
}{
	{"http, accepts and never answers", protocolHTTPProtobuf, otlptest.Silent},
	{"http, never accepts", protocolHTTPProtobuf, otlptest.FullBacklog},
	{"grpc, accepts and never answers", protocolGRPC, otlptest.Silent},
	{"grpc, never accepts", protocolGRPC, otlptest.FullBacklog},
}

// TestOTLPHungReceiver: with a receiver that never answers, ExportStart
// returns before the export's timeout (1.5 s) could have passed, so the
// probes it precedes never wait for the receiver; Shutdown, without a
// deadline of its own, returns after the start export and the final
// flush have each used their 1.5 s, not the reader's 30 s, and says the
// flush failed.
func TestOTLPHungReceiver(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	for _, tc := range hungCases {
		t.Run(tc.name, func(t *testing.T) {
			getenv := setenv(t, map[string]string{
				"OTEL_METRICS_EXPORTER":               "otlp",
				"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": tc.protocol,
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + tc.addr(t) + "/v1/metrics",
				"OTEL_EXPORTER_OTLP_TIMEOUT":          "1500",
				"OTEL_METRIC_EXPORT_INTERVAL":         "3600000",
			})
			m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Getenv: getenv})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			m.ExportStart(context.Background())
			if took := time.Since(start); took >= timeout {
				t.Errorf("ExportStart took %v: it waited for the receiver", took)
			}
			start = time.Now()
			err = m.Shutdown(context.Background())
			if took := time.Since(start); took > 2*timeout+3*time.Second {
				t.Errorf("Shutdown took %v, want about 2 × %v", took, timeout)
			}
			if err == nil {
				t.Error("Shutdown = nil, want the failed final flush")
			}
		})
	}
}

// TestOTLPExportTimeout: each export, retries included, ends within
// OTEL_EXPORTER_OTLP_METRICS_TIMEOUT (which wins over the general
// variable), whatever the caller's context allows.
func TestOTLPExportTimeout(t *testing.T) {
	for _, tc := range []int{0, 2} {
		tc := hungCases[tc]
		getenv := setenv(t, map[string]string{
			"OTEL_METRICS_EXPORTER":               "otlp",
			"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": tc.protocol,
			"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + tc.addr(t) + "/v1/metrics",
			"OTEL_EXPORTER_OTLP_TIMEOUT":          "60000",
			"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT":  "300",
		})
		reader, exp, err := newOTLPReader(context.Background(), getenv, nil, newRetired())
		if err != nil {
			t.Fatal(err)
		}
		if exp.timeout != 300*time.Millisecond {
			t.Fatalf("timeout %v, want 300ms", exp.timeout)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		start := time.Now()
		err = exp.Export(ctx, emptyResourceMetrics())
		took := time.Since(start)
		cancel()
		if err == nil || took > 3*time.Second {
			t.Errorf("%s: Export = %v after %v, want an error within 300ms (and the retries' backoff)", tc.name, err, took)
		}
		_ = reader.Shutdown(context.Background())
	}
}

// endless is an io.Reader of endless bytes, made as they are read.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestOTLPHTTPAnswerBounded: an OTLP/HTTP receiver that answers an endless
// body, as a partial success or as an error, fails the export once
// MaxOTLPResponseBytes are read; the export allocates less than 1 MiB in
// all (the body's buffer grows to at most twice the 64 KiB bound), where
// the exporter's own bound would let it read 4 MiB.
func TestOTLPHTTPAnswerBounded(t *testing.T) {
	for _, tc := range []struct {
		name        string
		status      int
		contentType string
	}{
		{"partial success", http.StatusOK, "application/x-protobuf"},
		{"error text", http.StatusBadRequest, "text/plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.status)
				_, _ = io.Copy(w, endless{})
			}))
			t.Cleanup(srv.Close)
			getenv := setenv(t, map[string]string{
				"OTEL_METRICS_EXPORTER":               "otlp",
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": srv.URL + "/v1/metrics",
				"OTEL_EXPORTER_OTLP_COMPRESSION":      "none",
			})
			reader, exp, err := newOTLPReader(context.Background(), getenv, nil, newRetired())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = reader.Shutdown(context.Background()) })
			rm := emptyResourceMetrics()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err = exp.Export(context.Background(), rm)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), "response body too large: exceeded 65536 bytes") {
				t.Errorf("Export = %v, want the body bound", err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
				t.Errorf("the export allocated %d bytes, want under 1 MiB", got)
			}
		})
	}
}

// bigAnswer is an OTLP/gRPC receiver whose answer's partial-success
// message is 1 MiB.
type bigAnswer struct {
	collectorpb.UnimplementedMetricsServiceServer
}

// Export implements collectorpb.MetricsServiceServer.
func (bigAnswer) Export(context.Context, *collectorpb.ExportMetricsServiceRequest) (*collectorpb.ExportMetricsServiceResponse, error) {
	return &collectorpb.ExportMetricsServiceResponse{PartialSuccess: &collectorpb.ExportMetricsPartialSuccess{
		ErrorMessage: strings.Repeat("x", 1<<20)}}, nil
}

// TestOTLPGRPCAnswerBounded: an OTLP/gRPC answer larger than
// MaxOTLPResponseBytes fails the export with ResourceExhausted (gRPC reads
// the message's length before the message and refuses it).
func TestOTLPGRPCAnswerBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	collectorpb.RegisterMetricsServiceServer(srv, bigAnswer{})
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Stop(); <-done })
	getenv := setenv(t, map[string]string{
		"OTEL_METRICS_EXPORTER":               "otlp",
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": protocolGRPC,
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + l.Addr().String(),
	})
	reader, exp, err := newOTLPReader(context.Background(), getenv, nil, newRetired())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reader.Shutdown(context.Background()) })
	err = exp.Export(context.Background(), emptyResourceMetrics())
	if s, ok := status.FromError(errors.Unwrap(err)); err == nil || (ok && s.Code() != codes.ResourceExhausted) ||
		!strings.Contains(err.Error(), "larger than max") {
		t.Errorf("Export = %.200v, want ResourceExhausted: larger than max", err)
	}
}
