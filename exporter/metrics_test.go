package exporter

import (
	"bytes"
	"context"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.prom from the current output")

// ownFamilies keeps the families this package defines: not the Go and
// process collectors, and not build info, whose goversion label varies.
func ownFamilies(mfs []*dto.MetricFamily) []*dto.MetricFamily {
	var out []*dto.MetricFamily
	for _, mf := range mfs {
		n := mf.GetName()
		if strings.HasPrefix(n, "go_") || strings.HasPrefix(n, "process_") || n == "llmprober_build_info" {
			continue
		}
		out = append(out, mf)
	}
	return out
}

// exposition renders families in the Prometheus text format.
func exposition(t *testing.T, mfs []*dto.MetricFamily) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&buf, mf); err != nil {
			t.Fatalf("MetricFamilyToText: %v", err)
		}
	}
	return buf.Bytes()
}

func TestGoldenExposition(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta, gamma)
	feedFixtures(o)
	o.Started("gamma")
	o.Finished(gammaOK())
	got := exposition(t, ownFamilies(gather(t, m)))
	path := filepath.Join("testdata", "golden.prom")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("exposition differs from %s (run with -update after checking):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// fsum adds vs in order in float64, as the SDK does (a constant expression
// would be computed exactly instead).
func fsum(vs ...float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s
}

// histCase checks one histogram series: count, sum and some buckets.
type histCase struct {
	name    string
	family  string
	labels  map[string]string
	count   uint64
	sum     float64
	buckets map[float64]int64 // le → cumulative count
}

func TestHistogramValues(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o)
	mfs := gather(t, m)
	alphaGenAI := map[string]string{"gen_ai_operation_name": "chat", "gen_ai_provider_name": "openai",
		"gen_ai_request_model": "llama-3-8b", "server_address": "10.0.0.1", "server_port": "8000"}
	with := func(base map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for bk, bv := range base {
			out[bk] = bv
		}
		return out
	}
	inf := math.Inf(1)
	for _, tc := range []histCase{
		{"TTFT 0.25 s lands in le=0.25 and above, not le=0.2", "llmprober_time_to_first_token_seconds",
			map[string]string{"target": "alpha"}, 1, 0.25, map[float64]int64{0.2: 0, 0.25: 1, 0.3: 1, inf: 1}},
		{"TTFOT 0.27 s lands in le=0.3", "llmprober_time_to_first_output_token_seconds",
			map[string]string{"target": "alpha"}, 1, 0.27, map[float64]int64{0.25: 0, 0.3: 1}},
		{"ITL 0.02 s lands in le=0.02", "llmprober_inter_token_latency_seconds",
			map[string]string{"target": "alpha"}, 1, 0.02, map[float64]int64{0.01: 0, 0.02: 1}},
		{"TPOT 0.0775 s lands in le=0.1", "llmprober_time_per_output_token_seconds",
			map[string]string{"target": "alpha"}, 1, 0.0775, map[float64]int64{0.075: 0, 0.1: 1}},
		{"non-streamed TPOT 0.03125 s lands in le=0.04", "llmprober_time_per_output_token_seconds",
			map[string]string{"target": "beta"}, 1, 0.03125, map[float64]int64{0.03: 0, 0.04: 1}},
		// Dispatch delays 0.01, 0 and 0.005 (incomplete counts too): sum 0.015.
		{"dispatch delay of every outcome", "llmprober_dispatch_delay_seconds",
			map[string]string{"target": "alpha"}, 3, fsum(0.01, 0, 0.005), map[float64]int64{0.0001: 1, 0.005: 2, 0.01: 3}},
		{"scheduled latency 0.34 s of the successful request only", "llmprober_scheduled_latency_seconds",
			map[string]string{"target": "alpha"}, 1, 0.34, map[float64]int64{0.3: 0, 0.5: 1}},
		{"first byte 0.1 s and 0.05 s", "llmprober_http_phase_duration_seconds",
			map[string]string{"target": "alpha", "phase": "first_byte"}, 2, fsum(0.1, 0.05), map[float64]int64{0.05: 1, 0.1: 2}},
		{"dns 0.002 s", "llmprober_http_phase_duration_seconds",
			map[string]string{"target": "alpha", "phase": "dns"}, 1, 0.002, map[float64]int64{0.001: 0, 0.005: 1}},
		{"tls 0.02 s", "llmprober_http_phase_duration_seconds",
			map[string]string{"target": "beta", "phase": "tls"}, 1, 0.02, map[float64]int64{0.01: 0, 0.025: 1}},
		{"successful duration 0.33 s", "gen_ai_client_operation_duration_seconds",
			alphaGenAI, 1, 0.33, map[float64]int64{0.32: 0, 0.64: 1}},
		{"errored duration 0.06 s with error.type", "gen_ai_client_operation_duration_seconds",
			with(alphaGenAI, "error_type", "http_5xx"), 1, 0.06, map[float64]int64{0.04: 0, 0.08: 1}},
		{"time to first chunk 0.1 s", "gen_ai_client_operation_time_to_first_chunk_seconds",
			alphaGenAI, 1, 0.1, map[float64]int64{0.08: 0, 0.16: 1}},
		// Gaps 0.15, 0.02, 0.02, 0.02, 0.01, kept per bucket by the record
		// and summed bucket by bucket (probe.Gaps.Each): 0.01, then the
		// three 0.02, then 0.15 (0.22; in arrival order the float sum
		// would be 0.21999999999999997).
		{"five chunk gaps", "gen_ai_client_operation_time_per_output_chunk_seconds",
			alphaGenAI, 5, fsum(0.01, 0.02, 0.02, 0.02, 0.15), map[float64]int64{0.01: 1, 0.02: 4, 0.16: 5}},
		{"12 input tokens", "gen_ai_client_token_usage",
			with(alphaGenAI, "gen_ai_token_type", "input"), 1, 12, map[float64]int64{4: 0, 16: 1}},
		{"4 output tokens on the le=4 boundary", "gen_ai_client_token_usage",
			with(alphaGenAI, "gen_ai_token_type", "output"), 1, 4, map[float64]int64{1: 0, 4: 1}},
		{"completions operation name", "gen_ai_client_operation_duration_seconds",
			map[string]string{"gen_ai_operation_name": "text_completion", "gen_ai_provider_name": "openai", "server_port": "443"},
			1, 0.5, map[float64]int64{0.32: 0, 0.64: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := findMetric(mfs, tc.family, tc.labels)
			if mt == nil {
				t.Fatalf("no %s series with %v", tc.family, tc.labels)
			}
			h := mt.GetHistogram()
			if h.GetSampleCount() != tc.count || h.GetSampleSum() != tc.sum {
				t.Errorf("count, sum = %d, %v; want %d, %v", h.GetSampleCount(), h.GetSampleSum(), tc.count, tc.sum)
			}
			for le, want := range tc.buckets {
				if got := bucketCount(h, le); got != want {
					t.Errorf("bucket le=%v = %d; want %d", le, got, want)
				}
			}
		})
	}
}

func TestAbsentSeries(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o)
	mfs := gather(t, m)
	for _, tc := range []struct {
		name, family string
		labels       map[string]string
	}{
		{"no TTFT for a non-streamed target", "llmprober_time_to_first_token_seconds", map[string]string{"target": "beta"}},
		{"no chunk metrics for a non-streamed target", "gen_ai_client_operation_time_to_first_chunk_seconds",
			map[string]string{"gen_ai_request_model": "gpt2"}},
		{"no dispatch delay without a schedule", "llmprober_dispatch_delay_seconds", map[string]string{"target": "beta"}},
		{"no tls phase on a plain connection", "llmprober_http_phase_duration_seconds",
			map[string]string{"target": "alpha", "phase": "tls"}},
		{"no canceled error.type: incomplete requests have no duration", "gen_ai_client_operation_duration_seconds",
			map[string]string{"error_type": "canceled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if mt := findMetric(mfs, tc.family, tc.labels); mt != nil {
				t.Errorf("unexpected series %v", mt.GetLabel())
			}
		})
	}
}

func TestCounterAndGaugeValues(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o)
	mfs := gather(t, m)
	for _, tc := range []struct {
		name, family string
		labels       map[string]string
		want         float64
	}{
		{"successful request", "llmprober_requests_total", map[string]string{"target": "alpha", "outcome": "successful"}, 1},
		{"http_5xx error", "llmprober_requests_total",
			map[string]string{"target": "alpha", "outcome": "errored", "error_type": "http_5xx"}, 1},
		{"timeout exists at 0", "llmprober_requests_total",
			map[string]string{"target": "beta", "outcome": "errored", "error_type": "timeout"}, 0},
		{"canceled", "llmprober_requests_total",
			map[string]string{"target": "alpha", "outcome": "incomplete", "error_type": "canceled"}, 1},
		{"5 scheduled", "llmprober_probes_scheduled_total", map[string]string{"target": "alpha"}, 5},
		{"scheduled exists at 0", "llmprober_probes_scheduled_total", map[string]string{"target": "beta"}, 0},
		{"queue_full drop", "llmprober_probes_dropped_total", map[string]string{"target": "alpha", "reason": "queue_full"}, 1},
		{"2 shutdown drops", "llmprober_probes_dropped_total", map[string]string{"target": "beta", "reason": "shutdown"}, 2},
		// 4 started − 3 finished = 1 in flight.
		{"1 in flight", "llmprober_requests_in_flight", map[string]string{"target": "alpha"}, 1},
		{"none in flight", "llmprober_requests_in_flight", map[string]string{"target": "beta"}, 0},
		{"alpha ready", "llmprober_target_state", map[string]string{"target": "alpha", "state": "ready"}, 1},
		{"alpha not waiting", "llmprober_target_state", map[string]string{"target": "alpha", "state": "waiting"}, 0},
		{"beta failed", "llmprober_target_state", map[string]string{"target": "beta", "state": "failed"}, 1},
		{"alpha waited 1.5 s", "llmprober_target_startup_wait_seconds", map[string]string{"target": "alpha"}, 1.5},
		{"beta waited 30 s", "llmprober_target_startup_wait_seconds", map[string]string{"target": "beta"}, 30},
		{"info", "llmprober_target_info", map[string]string{"target": "beta", "model": "gpt2", "api": "completions",
			"stream": "false", "server_address": "llm.example"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mt := findMetric(mfs, tc.family, tc.labels)
			if mt == nil {
				t.Fatalf("no %s series with %v", tc.family, tc.labels)
			}
			if got := mt.GetCounter().GetValue() + mt.GetGauge().GetValue(); got != tc.want {
				t.Errorf("value = %v; want %v", got, tc.want)
			}
		})
	}
}

func TestBuildInfo(t *testing.T) {
	m, _ := newTestMetrics(t)
	want := map[string]string{"version": "1.2.3", "revision": "abc123", "goversion": runtime.Version(),
		"service_name": "llmprober", "service_instance_id": m.Identity().InstanceID}
	mt := findMetric(gather(t, m), "llmprober_build_info", want)
	if mt == nil || mt.GetGauge().GetValue() != 1 || !uuidV4.MatchString(m.Identity().InstanceID) {
		t.Fatalf("llmprober_build_info%v = %v; want 1 with a random instance id", want, mt)
	}
	other, _ := newTestMetrics(t)
	if other.Identity().InstanceID == m.Identity().InstanceID {
		t.Errorf("two processes share service.instance.id %s", m.Identity().InstanceID)
	}
}

// TestIdentityFromEnvironment: OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SERVICE_NAME set the identity, on the resource and on build info.
func TestIdentityFromEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, attrs, service string
		want                 Identity
	}{
		{"instance id and pod from the downward API", "service.instance.id=pod-7,k8s.pod.name=pod-7", "",
			Identity{ServiceName: "llmprober", InstanceID: "pod-7"}},
		{"service name variable wins", "service.name=a,service.instance.id=x", "probe-eu",
			Identity{ServiceName: "probe-eu", InstanceID: "x"}},
		// Empty values keep the defaults: a random instance id (each
		// process its own) and llmprober.
		{"empty instance id", "service.instance.id=,k8s.pod.name=p", "", Identity{ServiceName: "llmprober", InstanceID: "random"}},
		{"empty service name", "service.name=", "", Identity{ServiceName: "llmprober", InstanceID: "random"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tc.attrs)
			t.Setenv("OTEL_SERVICE_NAME", tc.service)
			m, err := NewMetrics(context.Background(), Options{Version: "1", Getenv: noEnv})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = m.Shutdown(context.Background()) }()
			if tc.want.InstanceID == "random" {
				if !uuidV4.MatchString(m.Identity().InstanceID) {
					t.Errorf("instance id %q, want a random UUID", m.Identity().InstanceID)
				}
				tc.want.InstanceID = m.Identity().InstanceID
			}
			if m.Identity() != tc.want {
				t.Errorf("identity %+v, want %+v", m.Identity(), tc.want)
			}
			labels := map[string]string{"service_name": tc.want.ServiceName, "service_instance_id": tc.want.InstanceID}
			if findMetric(gather(t, m), "llmprober_build_info", labels) == nil {
				t.Errorf("llmprober_build_info lacks %v", labels)
			}
		})
	}
}

func TestPromlint(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o)
	problems, err := promlint.NewWithMetricFamilies(gather(t, m)).Lint()
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// TestPromtoolCheckMetrics runs promtool on the whole exposition (Go and
// process collectors included) when promtool is installed.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed")
	}
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(exposition(t, gather(t, m)))
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func TestNewMetricsErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		extra   map[string][]float64
		wantErr string
	}{
		{"unknown exporter", map[string]string{"OTEL_METRICS_EXPORTER": "otlp,jaeger"}, nil, `unknown exporter "jaeger"`},
		{"bad protocol names the variable", map[string]string{"OTEL_METRICS_EXPORTER": "otlp",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, nil, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{"extra boundaries for a counter", nil, map[string][]float64{InstrumentRequests: {1}}, "not a histogram"},
		{"NaN boundary", nil, map[string][]float64{InstrumentTTFT: {math.NaN()}}, "must be finite"},
		{"negative boundary", nil, map[string][]float64{InstrumentTTFT: {-1}}, "not negative"},
		{"extra boundaries for the chunk gaps", nil, map[string][]float64{InstrumentTimePerOutputChunk: {0.05}}, "chunk gap buckets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			m, err := NewMetrics(context.Background(), Options{Getenv: getenv, ExtraBoundaries: tc.extra})
			if err == nil {
				_ = m.Shutdown(context.Background())
				t.Fatalf("NewMetrics succeeded; want error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
		})
	}
}

// TestChunkGapBounds checks that the chunk gap histogram has the records'
// buckets, which are the GenAI conventions' advice, the other GenAI
// durations' boundaries.
func TestChunkGapBounds(t *testing.T) {
	s, _ := histogramSpec(InstrumentTimePerOutputChunk)
	if !slices.Equal(s.Boundaries, genAIDurationBounds) {
		t.Errorf("chunk gap boundaries %v, want %v", s.Boundaries, genAIDurationBounds)
	}
}

func TestExtraBoundariesBecomeBuckets(t *testing.T) {
	m, err := NewMetrics(context.Background(), Options{Getenv: noEnv, ExtraBoundaries: map[string][]float64{
		InstrumentTTFT: {0.2, 0.22, 0.22}, // 0.2 is a default; 0.22 twice
	}})
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	o, err := NewObserver(m, []Target{alpha})
	if err != nil {
		t.Fatalf("NewObserver: %v", err)
	}
	o.Finished(alphaOK())
	h := findMetric(gather(t, m), "llmprober_time_to_first_token_seconds", nil).GetHistogram()
	// Default 26 boundaries plus one new (0.22): 27 finite buckets; the 0.25 s
	// sample is above 0.22.
	if n := len(h.GetBucket()); n != len(latencyBounds)+1 {
		t.Errorf("%d buckets; want %d", n, len(latencyBounds)+1)
	}
	if got := bucketCount(h, 0.22); got != 0 {
		t.Errorf("bucket le=0.22 = %d; want 0", got)
	}
}

func TestShutdownIdempotent(t *testing.T) {
	m, err := NewMetrics(context.Background(), Options{Getenv: noEnv})
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	for i := range 2 {
		if err := m.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown #%d: %v", i+1, err)
		}
	}
}
