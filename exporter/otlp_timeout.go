package exporter

import (
	"strconv"
	"strings"
	"time"
)

// Standard variables of the OTLP exporter's timeout, in whole milliseconds.
const (
	envOTLPMetricsTimeout = "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT"
	envOTLPTimeout        = "OTEL_EXPORTER_OTLP_TIMEOUT"
)

// DefaultFlushTimeout bounds the final OTLP flush when neither timeout
// variable is set: the exporters' own default, 10 s.
const DefaultFlushTimeout = 10 * time.Second

// FlushTimeout returns the bound of the final OTLP flush: the timeout the
// OTLP exporter itself applies to an export, read as the exporters read
// it: OTEL_EXPORTER_OTLP_METRICS_TIMEOUT, else OTEL_EXPORTER_OTLP_TIMEOUT,
// in milliseconds, each used only when it is a positive integer, else
// DefaultFlushTimeout (so the flush is bounded even where the variable
// says 0, which an HTTP exporter takes as no timeout). getenv nil means no
// variable is set.
func FlushTimeout(getenv func(string) string) time.Duration {
	if getenv == nil {
		return DefaultFlushTimeout
	}
	for _, name := range []string{envOTLPMetricsTimeout, envOTLPTimeout} {
		ms, err := strconv.ParseInt(strings.TrimSpace(getenv(name)), 10, 64)
		if err == nil && ms > 0 && ms <= int64(time.Duration(1<<63-1)/time.Millisecond) {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return DefaultFlushTimeout
}
