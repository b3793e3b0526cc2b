package exporter

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

func TestOTLPWanted(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
		wantErr     string
	}{
		{"unset", "", false, ""},
		{"none", "none", false, ""},
		{"prometheus only", "prometheus", false, ""},
		{"otlp", "otlp", true, ""},
		{"list with spaces and case", " OTLP , prometheus,", true, ""},
		{"none with otlp", "otlp,none", false, "combines none with otlp"},
		{"unknown", "zipkin", false, `unknown exporter "zipkin"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := otlpWanted(func(string) string { return tc.value })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), envMetricsExporter) {
					t.Fatalf("error = %v; want one containing %q and the variable name", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("otlpWanted = %v, %v; want %v, nil", got, err, tc.want)
			}
		})
	}
}

func TestOTLPProtocol(t *testing.T) {
	for _, tc := range []struct {
		name             string
		metrics, general string
		want, wantErr    string
	}{
		{"default", "", "", protocolHTTPProtobuf, ""},
		{"general grpc", "", "grpc", protocolGRPC, ""},
		{"metrics-specific wins", "http/protobuf", "grpc", protocolHTTPProtobuf, ""},
		{"metrics-specific grpc", "grpc", "", protocolGRPC, ""},
		{"bad metrics-specific names it", "http/json", "grpc", "", envOTLPMetricsProtocol},
		{"bad general names it", "", "thrift", "", envOTLPProtocol + `="thrift"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{envOTLPMetricsProtocol: tc.metrics, envOTLPProtocol: tc.general}
			got, err := otlpProtocol(func(k string) string { return env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v; want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("otlpProtocol = %q, %v; want %q, nil", got, err, tc.want)
			}
		})
	}
}

// receiver is an in-process OTLP endpoint delivering each export request.
type receiver struct {
	endpoint string // value for OTEL_EXPORTER_OTLP_METRICS_ENDPOINT
	requests chan *collectorpb.ExportMetricsServiceRequest
}

// startHTTPReceiver serves OTLP/HTTP protobuf on 127.0.0.1.
func startHTTPReceiver(t *testing.T) *receiver {
	r := &receiver{requests: make(chan *collectorpb.ExportMetricsServiceRequest, 16)}
	srv := httptest.NewServer(r.handler())
	t.Cleanup(srv.Close)
	r.endpoint = srv.URL + "/v1/metrics"
	return r
}

// handler serves OTLP/HTTP protobuf, delivering each export request to r.
func (r *receiver) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		raw, err := io.ReadAll(body)
		msg := &collectorpb.ExportMetricsServiceRequest{}
		if err == nil {
			err = proto.Unmarshal(raw, msg)
		}
		if err != nil || req.URL.Path != "/v1/metrics" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		r.requests <- msg
		out, _ := proto.Marshal(&collectorpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})
}

// grpcReceiver implements the OTLP metrics service.
type grpcReceiver struct {
	collectorpb.UnimplementedMetricsServiceServer
	requests chan *collectorpb.ExportMetricsServiceRequest
}

// Export implements collectorpb.MetricsServiceServer.
func (g *grpcReceiver) Export(_ context.Context, req *collectorpb.ExportMetricsServiceRequest) (*collectorpb.ExportMetricsServiceResponse, error) {
	g.requests <- req
	return &collectorpb.ExportMetricsServiceResponse{}, nil
}

// startGRPCReceiver serves OTLP/gRPC on 127.0.0.1.
func startGRPCReceiver(t *testing.T) *receiver {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	g := &grpcReceiver{requests: make(chan *collectorpb.ExportMetricsServiceRequest, 16)}
	srv := grpc.NewServer()
	collectorpb.RegisterMetricsServiceServer(srv, g)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return &receiver{endpoint: "http://" + l.Addr().String(), requests: g.requests}
}

func TestOTLPExportOnShutdown(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		start    func(*testing.T) *receiver
	}{
		{protocolHTTPProtobuf, startHTTPReceiver},
		{protocolGRPC, startGRPCReceiver},
	} {
		t.Run(tc.protocol, func(t *testing.T) {
			rcv := tc.start(t)
			getenv := setenv(t, map[string]string{
				"OTEL_METRICS_EXPORTER":               "otlp,prometheus",
				"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": tc.protocol,
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": rcv.endpoint,
				"OTEL_METRIC_EXPORT_INTERVAL":         "3600000", // 1 h: only the final flush exports
			})
			m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Getenv: getenv})
			if err != nil {
				t.Fatalf("NewMetrics: %v", err)
			}
			if !m.OTLPEnabled() {
				t.Fatal("OTLP not enabled")
			}
			o, err := NewObserver(m, []Target{alpha, beta})
			if err != nil {
				t.Fatalf("NewObserver: %v", err)
			}
			feedFixtures(o)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			before := time.Now()
			if err := m.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			req := receive(t, rcv)
			checkExport(t, req)
			checkHeartbeat(t, req, before, time.Now())
		})
	}
}

// receive returns the export request the final flush sent.
func receive(t *testing.T, r *receiver) *collectorpb.ExportMetricsServiceRequest {
	t.Helper()
	select {
	case req := <-r.requests:
		return req
	default:
		t.Fatal("no export request received by the end of Shutdown")
		return nil
	}
}

// otlpMetrics indexes the metrics of req by name and returns the resource attributes.
func otlpMetrics(req *collectorpb.ExportMetricsServiceRequest) (map[string]*metricspb.Metric, map[string]string) {
	byName := map[string]*metricspb.Metric{}
	res := map[string]string{}
	for _, rm := range req.GetResourceMetrics() {
		for _, kv := range rm.GetResource().GetAttributes() {
			res[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, mt := range sm.GetMetrics() {
				byName[mt.GetName()] = mt
			}
		}
	}
	return byName, res
}

// attrsMatch reports whether kvs include every key/value of want (values as strings).
func attrsMatch(kvs []*commonpb.KeyValue, want map[string]string) bool {
	got := map[string]string{}
	for _, kv := range kvs {
		got[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// checkExport asserts the instruments and a few values of the fixture story.
func checkExport(t *testing.T, req *collectorpb.ExportMetricsServiceRequest) {
	t.Helper()
	byName, res := otlpMetrics(req)
	if res["service.name"] != "llmprober" || res["service.version"] != "1.2.3" || !uuidV4.MatchString(res["service.instance.id"]) {
		t.Errorf("resource = %v; want service.name llmprober, service.version 1.2.3, a random service.instance.id", res)
	}
	want := []string{
		InstrumentOperationDuration, InstrumentTokenUsage, InstrumentTimeToFirstChunk, InstrumentTimePerOutputChunk,
		InstrumentTTFT, InstrumentTTFOT, InstrumentITL, InstrumentTPOT, InstrumentDispatchDelay,
		InstrumentScheduledLatency, InstrumentHTTPPhaseDuration, InstrumentRequests, InstrumentProbesScheduled,
		InstrumentProbesDropped, InstrumentInFlight, InstrumentTargetState, InstrumentStartupWait, InstrumentTargetInfo,
		InstrumentTurnPredecessorDelay, InstrumentTurnSchedulingDelay, InstrumentThinkTime, InstrumentGenerationDelay,
		InstrumentSLOEvaluated, InstrumentSLOConforming, InstrumentSLONonConforming, InstrumentSLOObjectiveRatio, InstrumentSLOPeriod,
		InstrumentOTLPExports, InstrumentBuildInfo, InstrumentCollectionTimestamp,
		InstrumentReloadSuccessful, InstrumentReloadSuccessTimestamp, InstrumentReloads,
		// The Go and process collectors, bridged, as the dashboards read them.
		"process_cpu_seconds_total", "process_resident_memory_bytes", "go_goroutines",
	}
	var got []string
	for n := range byName {
		if n == "process_cpu_seconds_total" || n == "process_resident_memory_bytes" || n == "go_goroutines" ||
			!strings.HasPrefix(n, "go_") && !strings.HasPrefix(n, "process_") {
			got = append(got, n)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("exported instruments = %v; want %v", got, want)
	}
	checkOTLPTTFT(t, byName[InstrumentTTFT])
	checkOTLPRequests(t, byName[InstrumentRequests])
}

// checkHeartbeat: the export carries the time it was collected, between
// from and to, as its heartbeat.
func checkHeartbeat(t *testing.T, req *collectorpb.ExportMetricsServiceRequest, from, to time.Time) {
	t.Helper()
	byName, _ := otlpMetrics(req)
	points := byName[InstrumentCollectionTimestamp].GetGauge().GetDataPoints()
	if len(points) != 1 {
		t.Fatalf("heartbeat points = %v, want 1", points)
	}
	if v := points[0].GetAsDouble(); v < float64(from.UnixNano())/1e9 || v > float64(to.UnixNano())/1e9 {
		t.Errorf("heartbeat %f, want the export's time, between %v and %v", v, from, to)
	}
}

// uuidV4 matches a random UUID as service.instance.id is drawn.
var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// checkOTLPTTFT: one 0.25 s sample in the bucket (0.2, 0.25] of the latency boundaries.
func checkOTLPTTFT(t *testing.T, mt *metricspb.Metric) {
	t.Helper()
	if mt.GetUnit() != "s" || mt.GetDescription() == "" {
		t.Errorf("TTFT unit %q, description %q; want s and a description", mt.GetUnit(), mt.GetDescription())
	}
	dps := mt.GetHistogram().GetDataPoints()
	if len(dps) != 1 || !attrsMatch(dps[0].GetAttributes(), map[string]string{"target": "alpha"}) {
		t.Fatalf("TTFT data points = %v; want one for alpha", dps)
	}
	dp := dps[0]
	if dp.GetCount() != 1 || dp.GetSum() != 0.25 || !slices.Equal(dp.GetExplicitBounds(), latencyBounds) {
		t.Errorf("TTFT count %d sum %v bounds %v; want 1, 0.25, %v", dp.GetCount(), dp.GetSum(), dp.GetExplicitBounds(), latencyBounds)
	}
	i := slices.Index(latencyBounds, 0.25)
	if counts := dp.GetBucketCounts(); len(counts) != len(latencyBounds)+1 || counts[i] != 1 {
		t.Errorf("TTFT bucket counts %v; want 1 at index %d (le 0.25)", counts, i)
	}
}

// checkOTLPRequests: cumulative monotonic sums, the http_5xx series at 1 and a zero series present.
func checkOTLPRequests(t *testing.T, mt *metricspb.Metric) {
	t.Helper()
	sum := mt.GetSum()
	if !sum.GetIsMonotonic() || sum.GetAggregationTemporality() != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
		t.Errorf("requests: monotonic %v temporality %v; want cumulative monotonic", sum.GetIsMonotonic(), sum.GetAggregationTemporality())
	}
	// 2 targets × (1 successful + 7 errored + 2 incomplete: canceled,
	// prober) = 20 series.
	if n := len(sum.GetDataPoints()); n != 20 {
		t.Errorf("requests has %d series; want 20", n)
	}
	for _, tc := range []struct {
		attrs map[string]string
		want  int64
	}{
		{map[string]string{"target": "alpha", "outcome": "errored", "error_type": "http_5xx"}, 1},
		{map[string]string{"target": "beta", "outcome": "errored", "error_type": "timeout"}, 0},
	} {
		i := slices.IndexFunc(sum.GetDataPoints(), func(dp *metricspb.NumberDataPoint) bool {
			return attrsMatch(dp.GetAttributes(), tc.attrs)
		})
		if i < 0 || sum.GetDataPoints()[i].GetAsInt() != tc.want {
			t.Errorf("requests%v missing or not %d", tc.attrs, tc.want)
		}
	}
}

// FuzzOTLPWanted checks that any OTEL_METRICS_EXPORTER value either fails
// naming the variable or enables OTLP exactly when it lists otlp.
func FuzzOTLPWanted(f *testing.F) {
	for _, s := range []string{"", "otlp", "none", "prometheus,otlp", "OTLP ,", "otlp,none", "x,,y", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		got, err := otlpWanted(func(string) string { return value })
		if err != nil {
			if !strings.Contains(err.Error(), envMetricsExporter) {
				t.Errorf("error %q does not name %s", err, envMetricsExporter)
			}
			return
		}
		listed := slices.ContainsFunc(strings.Split(value, ","), func(v string) bool {
			return strings.EqualFold(strings.TrimSpace(v), "otlp")
		})
		if got != listed {
			t.Errorf("otlpWanted(%q) = %v; want %v", value, got, listed)
		}
	})
}

// TestOTLPEndpointCredentials: an endpoint URL with a user name or
// password is refused by ValidateEnv and NewMetrics, naming the variable
// and never quoting the URL; other endpoints pass.
func TestOTLPEndpointCredentials(t *testing.T) {
	for _, tc := range []struct {
		name, variable, endpoint string
		refused                  bool
	}{
		{"user and password", "OTEL_EXPORTER_OTLP_ENDPOINT", "https://probe:hunter2hunter@collector:4318", true},
		{"user only", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://token-sk-abc@collector:4318/v1/metrics", true},
		{"gRPC host:port with credentials", "OTEL_EXPORTER_OTLP_ENDPOINT", "probe:hunter2hunter@collector:4317", true},
		{"plain", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318", false},
		{"gRPC host:port", "OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4317", false},
		{"an @ in the path", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "http://collector:4318/v1/metrics@x", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"OTEL_METRICS_EXPORTER": "otlp", tc.variable: tc.endpoint}
			err := ValidateEnv(func(k string) string { return env[k] })
			if !tc.refused {
				if err != nil {
					t.Fatalf("ValidateEnv = %v, want nil", err)
				}
				return
			}
			if err == nil || !errors.Is(err, errExporterConfig) || !strings.Contains(err.Error(), tc.variable+": ") ||
				!strings.Contains(err.Error(), "Authorization=Basic") || strings.Contains(err.Error(), "hunter2") ||
				strings.Contains(err.Error(), "sk-abc") {
				t.Fatalf("ValidateEnv = %v; want a refusal naming %s, without the URL", err, tc.variable)
			}
			t.Setenv(tc.variable, tc.endpoint)
			if _, err := NewMetrics(context.Background(), Options{Getenv: func(k string) string { return env[k] }}); err == nil ||
				!strings.Contains(err.Error(), "user name or password") {
				t.Errorf("NewMetrics = %v; want the refusal", err)
			}
		})
	}
}

// TestOTLPExportAtStart: ExportStart collects at once, before any probe,
// and sends that export in the background, in which every counter point is 0 (so a receiver's first sample
// of each series is 0, and the first interval's counts are not lost);
// the final flush then carries the counts.
func TestOTLPExportAtStart(t *testing.T) {
	rcv := startHTTPReceiver(t)
	getenv := setenv(t, map[string]string{
		"OTEL_METRICS_EXPORTER":               "otlp",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": rcv.endpoint,
		"OTEL_METRIC_EXPORT_INTERVAL":         "3600000", // only the start and the final flush export
	})
	m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	o, err := NewObserver(m, []Target{alpha, beta})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m.ExportStart(ctx)
	var first *collectorpb.ExportMetricsServiceRequest
	select { // the start export runs in the background
	case first = <-rcv.requests:
	case <-ctx.Done():
		t.Fatal("no start export")
	}
	sums := counterSums(first)
	for _, name := range []string{InstrumentRequests, InstrumentProbesScheduled, InstrumentProbesDropped,
		InstrumentSLOEvaluated, InstrumentSLOConforming, InstrumentSLONonConforming} {
		if _, ok := sums[name]; !ok {
			t.Errorf("the first export lacks %s", name)
		}
	}
	for name, total := range sums {
		// The Go and process collectors count from the process's start.
		if strings.HasPrefix(name, "llmprober.") && name != InstrumentOTLPExports && total != 0 {
			t.Errorf("first export: %s sums to %v, want every point 0", name, total)
		}
	}
	feedFixtures(o)
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	last := counterSums(receive(t, rcv))
	// The fixtures finish 2 requests of alpha; the start export was one
	// success, counted by the final flush.
	if last[InstrumentRequests] == 0 || last[InstrumentOTLPExports] != 1 {
		t.Errorf("final flush: requests %v, exports %v; want the fixtures' requests and 1 export",
			last[InstrumentRequests], last[InstrumentOTLPExports])
	}
}

// counterSums returns, per monotonic sum of req, the total of its points.
func counterSums(req *collectorpb.ExportMetricsServiceRequest) map[string]float64 {
	byName, _ := otlpMetrics(req)
	out := map[string]float64{}
	for name, mt := range byName {
		sum := mt.GetSum()
		if sum == nil || !sum.GetIsMonotonic() {
			continue
		}
		for _, p := range sum.GetDataPoints() {
			out[name] += p.GetAsDouble() + float64(p.GetAsInt())
		}
	}
	return out
}
