package exporter

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/llmprober/llmprober/probe"
)

// echoes are the ways a hostile receiver answers with the token it was
// sent: the errors and the partial successes of OTLP, the token as sent
// or upper-cased.
var echoes = []struct {
	name    string
	partial bool
	echo    func(string) string
}{
	{"error", false, func(s string) string { return s }},
	{"error upper-cased", false, strings.ToUpper},
	{"partial success", true, func(s string) string { return s }},
	{"partial success upper-cased", true, strings.ToUpper},
}

// echoHTTP answers every OTLP/HTTP export with echo of its Authorization
// header: a 400 whose body holds it, or a 200 partial success whose error
// message does.
func echoHTTP(t *testing.T, partial bool, echo func(string) string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		text := "denied " + echo(r.Header.Get("Authorization"))
		if !partial {
			http.Error(w, text, http.StatusBadRequest)
			return
		}
		out, _ := proto.Marshal(&collectorpb.ExportMetricsServiceResponse{
			PartialSuccess: &collectorpb.ExportMetricsPartialSuccess{RejectedDataPoints: 3, ErrorMessage: text}})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1/metrics"
}

// echoGRPC is echoHTTP over gRPC: an InvalidArgument status or a partial
// success.
type echoGRPC struct {
	collectorpb.UnimplementedMetricsServiceServer
	partial bool
	echo    func(string) string
}

// Export implements collectorpb.MetricsServiceServer.
func (e echoGRPC) Export(ctx context.Context, _ *collectorpb.ExportMetricsServiceRequest) (*collectorpb.ExportMetricsServiceResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	text := "denied " + e.echo(strings.Join(md.Get("authorization"), ""))
	if !e.partial {
		return nil, status.Error(codes.InvalidArgument, text)
	}
	return &collectorpb.ExportMetricsServiceResponse{
		PartialSuccess: &collectorpb.ExportMetricsPartialSuccess{RejectedDataPoints: 3, ErrorMessage: text}}, nil
}

// startEchoGRPC serves echoGRPC on 127.0.0.1 and returns its endpoint.
func startEchoGRPC(t *testing.T, partial bool, echo func(string) string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	collectorpb.RegisterMetricsServiceServer(srv, echoGRPC{partial: partial, echo: echo})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return "http://" + l.Addr().String()
}

// TestShutdownErrorRedacted: the final flush at shutdown fails against a
// receiver that echoes the token, in each way it can (an error, a partial
// success, the token upper-cased), over both protocols. The error
// Shutdown returns, which the daemon prints, still says what failed, has
// the token (in any case) redacted and is cut like every logged error.
func TestShutdownErrorRedacted(t *testing.T) {
	const prefix = "could not shut down meter provider: "
	for _, proto := range []string{protocolHTTPProtobuf, protocolGRPC} {
		for _, e := range echoes {
			t.Run(proto+"/"+e.name, func(t *testing.T) {
				endpoint := ""
				if proto == protocolGRPC {
					endpoint = startEchoGRPC(t, e.partial, e.echo)
				} else {
					endpoint = echoHTTP(t, e.partial, e.echo)
				}
				getenv := setenv(t, map[string]string{
					"OTEL_METRICS_EXPORTER":               "otlp",
					"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": proto,
					"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": endpoint,
					"OTEL_EXPORTER_OTLP_HEADERS":          "Authorization=Bearer%20" + url.PathEscape(planted),
					"OTEL_METRIC_EXPORT_INTERVAL":         "3600000",
				})
				m, err := NewMetrics(context.Background(), Options{Getenv: getenv})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err = m.Shutdown(ctx)
				if err == nil {
					t.Fatal("Shutdown succeeded against a receiver that rejects every export")
				}
				msg := err.Error()
				if strings.Contains(strings.ToLower(msg), "planted") || !strings.Contains(msg, "REDACTED") ||
					!strings.HasPrefix(msg, prefix) || utf8.RuneCountInString(msg) > len(prefix)+probe.MaxErrorChars {
					t.Errorf("Shutdown error = %q; want it redacted, cut and saying what failed", msg)
				}
				if again := m.Shutdown(ctx); again == nil || again.Error() != msg {
					t.Errorf("second Shutdown = %v, want the first error", again)
				}
			})
		}
	}
}

// TestSafeErrorCut: a long error text is redacted before it is cut, and
// the result does not unwrap to the original.
func TestSafeErrorCut(t *testing.T) {
	e := NewErrorLog(nil, func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=" + planted}[k]
	}, nil)
	inner := &url.Error{Op: "Post", URL: "http://c/v1/metrics", Err: context.DeadlineExceeded}
	long := strings.Repeat("x", 190) + strings.ToUpper(planted) + strings.Repeat("y", 300)
	err := e.safe("failed", &wrapped{msg: long, err: inner})
	if s := err.Error(); strings.Contains(strings.ToLower(s), "planted") || utf8.RuneCountInString(s) != len("failed: ")+probe.MaxErrorChars {
		t.Errorf("safe = %q (%d characters)", s, utf8.RuneCountInString(s))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		t.Error("the redacted error unwraps to the original")
	}
	if e.safe("failed", nil) != nil {
		t.Error("safe(nil) is not nil")
	}
}

// wrapped is an error with a text of its own around err.
type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }
