package exporter

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/llmprober/llmprober/probe"
)

// errorLogInterval is the least time between two logged OpenTelemetry
// errors; those in between are counted and the count is logged with the
// next one.
const errorLogInterval = time.Minute

// Variables whose values are OTLP credentials: header values and the
// passwords of endpoint URLs.
var (
	otlpHeaderVars   = []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"}
	otlpEndpointVars = []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"}
)

// minSecretPart is the shortest word of a header value redacted on its own
// (a receiver may echo "sk-…" without its "Bearer " scheme).
const minSecretPart = 8

// errorLog writes OpenTelemetry errors to a logger, redacted and
// rate-limited.
type errorLog struct {
	logger  *slog.Logger
	redact  probe.Redactor
	limiter *LogLimiter[string]
}

// newErrorLog returns an errorLog redacting the OTLP credentials that
// getenv finds.
func newErrorLog(logger *slog.Logger, getenv func(string) string, now func() time.Time) *errorLog {
	return &errorLog{logger: logger, redact: probe.NewRedactor(otlpSecrets(getenv)),
		limiter: NewLogLimiter[string](errorLogInterval, now)}
}

// handle logs err unless one was logged less than errorLogInterval ago.
func (e *errorLog) handle(err error) {
	if err == nil {
		return
	}
	held, ok := e.limiter.Allow("otlp")
	if !ok {
		return
	}
	e.logger.Warn("OpenTelemetry export failed", "error", e.redact.Bound(err.Error()), "similar_errors_not_logged", held)
}

// otlpSecrets returns the values of the OTLP header variables (each
// "key=value" pair's value, percent-decoded as the exporters decode it,
// and as written, and each of its words of minSecretPart characters or
// more) and the passwords of the endpoint variables.
func otlpSecrets(getenv func(string) string) []string {
	var out []string
	for _, name := range otlpHeaderVars {
		for pair := range strings.SplitSeq(getenv(name), ",") {
			_, v, ok := strings.Cut(pair, "=")
			if !ok {
				continue
			}
			out = append(out, secretForms(strings.TrimSpace(v))...)
		}
	}
	for _, name := range otlpEndpointVars {
		if u, err := url.Parse(strings.TrimSpace(getenv(name))); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p, u.User.String())
			}
		}
	}
	return out
}

// secretForms returns v as written, percent-decoded, and the long words of
// the decoded value.
func secretForms(v string) []string {
	out := []string{v}
	if d, err := url.PathUnescape(v); err == nil {
		out = append(out, d)
		v = d
	}
	for _, w := range strings.Fields(v) {
		if len(w) >= minSecretPart {
			out = append(out, w)
		}
	}
	return out
}

// SDKLogger returns a logger for otel.SetLogger: the SDK's own messages
// (an OTLP header it cannot parse, say, which it logs with its value) go to
// Options.Logger with every string redacted as HandleError redacts.
func (m *Metrics) SDKLogger() logr.Logger {
	return logr.FromSlogHandler(&redactingHandler{inner: m.errors.logger.Handler(), redact: m.errors.redact})
}

// redactingHandler redacts the message and every string attribute of a
// record before inner handles it.
type redactingHandler struct {
	inner  slog.Handler
	redact probe.Redactor
}

// Enabled implements slog.Handler.
func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

// Handle implements slog.Handler.
func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.redact.Bound(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

// attr redacts a's value, within groups too.
func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		attrs := v.Group()
		out := make([]any, len(attrs))
		for i, g := range attrs {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	}
	if v.Kind() == slog.KindString || v.Kind() == slog.KindAny {
		return slog.String(a.Key, h.redact.Bound(v.String()))
	}
	return a
}

// WithAttrs implements slog.Handler.
func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = h.attr(a)
	}
	return &redactingHandler{inner: h.inner.WithAttrs(out), redact: h.redact}
}

// WithGroup implements slog.Handler.
func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{inner: h.inner.WithGroup(name), redact: h.redact}
}
