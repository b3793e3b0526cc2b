package exporter

import (
	"testing"
	"time"
)

func TestFlushTimeout(t *testing.T) {
	for _, tc := range []struct {
		name          string
		metrics, otlp string
		want          time.Duration
	}{
		{"unset", "", "", 10 * time.Second},
		{"general", "", "1000", time.Second},
		{"metrics wins", "250", "1000", 250 * time.Millisecond},
		{"bad metrics value falls back", "1s", "1000", time.Second},
		{"spaces trimmed", " 1500 ", "", 1500 * time.Millisecond},
		{"zero is the default", "0", "", 10 * time.Second},
		{"negative is the default", "-5", "", 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{envOTLPMetricsTimeout: tc.metrics, envOTLPTimeout: tc.otlp}
			if got := FlushTimeout(func(k string) string { return env[k] }); got != tc.want {
				t.Errorf("FlushTimeout = %v; want %v", got, tc.want)
			}
		})
	}
	if got := FlushTimeout(nil); got != DefaultFlushTimeout {
		t.Errorf("FlushTimeout(nil) = %v", got)
	}
}
