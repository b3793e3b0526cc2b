package exporter

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// exportCounts returns llmprober_otlp_exports_total by outcome, and
// whether each outcome's series exists.
func exportCounts(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, outcome := range []string{exportSuccess, exportFailure} {
		if mt := findMetric(gather(t, m), "llmprober_otlp_exports_total", map[string]string{"outcome": outcome}); mt != nil {
			out[outcome] = mt.GetCounter().GetValue()
		}
	}
	return out
}

func TestOTLPExportsCounted(t *testing.T) {
	for _, tc := range []struct {
		name          string
		status        int
		counted, zero string
	}{
		{"accepted", http.StatusOK, exportSuccess, exportFailure},
		// 400 is not retried, so each export fails at once.
		{"rejected", http.StatusBadRequest, exportFailure, exportSuccess},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.status != http.StatusOK {
					http.Error(w, "rejected", tc.status)
					return
				}
				out, _ := proto.Marshal(&collectorpb.ExportMetricsServiceResponse{})
				w.Header().Set("Content-Type", "application/x-protobuf")
				_, _ = w.Write(out)
			}))
			defer srv.Close()
			getenv := setenv(t, map[string]string{
				"OTEL_METRICS_EXPORTER":               "otlp",
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": srv.URL + "/v1/metrics",
				"OTEL_METRIC_EXPORT_INTERVAL":         "20",
			})
			m, err := NewMetrics(context.Background(), Options{Getenv: getenv})
			if err != nil {
				t.Fatalf("NewMetrics: %v", err)
			}
			defer func() { _ = m.Shutdown(context.Background()) }()
			deadline := time.Now().Add(10 * time.Second)
			for exportCounts(t, m)[tc.counted] < 2 {
				if time.Now().After(deadline) {
					t.Fatalf("exports by outcome = %v after 10 s; want %s ≥ 2", exportCounts(t, m), tc.counted)
				}
				time.Sleep(10 * time.Millisecond)
			}
			got := exportCounts(t, m)
			if v, ok := got[tc.zero]; !ok || v != 0 {
				t.Errorf("exports by outcome = %v; want the %s series present at 0", got, tc.zero)
			}
		})
	}
}

func TestOTLPExportsAbsentWithoutOTLP(t *testing.T) {
	m, err := NewMetrics(context.Background(), Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	if got := exportCounts(t, m); len(got) != 0 {
		t.Errorf("exports by outcome = %v without OTLP; want no series", got)
	}
}
