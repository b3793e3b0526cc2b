package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRunNeverPrintsTheOTLPToken runs the daemon against a receiver that
// answers every export with its Authorization header upper-cased, with a
// header variable the exporter cannot fully decode (it logs the value as
// it starts). Nothing llmprober writes or returns holds the token in any
// case: the SDK's start-up message, the export errors while it runs, and
// the error of the final flush that Run returns and main prints.
func TestRunNeverPrintsTheOTLPToken(t *testing.T) {
	const token = "sk-live-TOKEN0123456789abcdef"
	otlp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "denied "+strings.ToUpper(r.Header.Get("Authorization")), http.StatusInternalServerError)
	}))
	t.Cleanup(otlp.Close)
	env := map[string]string{
		"OTEL_METRICS_EXPORTER":               "otlp",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": otlp.URL + "/v1/metrics",
		"OTEL_EXPORTER_OTLP_HEADERS":          "Authorization=Bearer%20" + token + ",x-odd=" + token + "%zz",
		"OTEL_METRIC_EXPORT_INTERVAL":         "50",
	}
	for k, v := range env { // the exporters read the process environment
		t.Setenv(k, v)
	}
	s := startSim(t)
	r := startRun(t, []string{"run", "--config", writeFile(t, "one.yml", "targets:\n  - {name: one, base_url: \""+s.URL()+"/v1\", model: sim-model, schedule: {rate: 5}}\n"), "--listen-address", "127.0.0.1:0"}, env)
	eventually(t, 10*time.Second, "a failed export logged", func() bool {
		return strings.Contains(r.stderr.String(), "OpenTelemetry export failed")
	})
	err := r.stop()
	if err == nil || !strings.Contains(err.Error(), "could not shut down meter provider") {
		t.Fatalf("Run = %v, want the failed final flush", err)
	}
	out := r.stderr.String() + r.stdout.String() + err.Error()
	if strings.Contains(strings.ToLower(out), strings.ToLower(token[8:])) {
		t.Errorf("the token was printed:\n%s", out)
	}
	for _, want := range []string{`msg="escape header value"`, "(body: denied REDACTED)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
