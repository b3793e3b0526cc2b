package exporter

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"

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

// ErrorLog writes the OpenTelemetry SDK's errors and messages to a
// logger, and makes the errors llmprober returns from the SDK safe to
// print: every text is redacted of the OTLP credentials (see otlpSecrets)
// and cut to probe.MaxErrorChars characters. Handle is rate-limited.
type ErrorLog struct {
	logger  *slog.Logger
	redact  probe.Redactor
	limiter *LogLimiter[string]
}

// NewErrorLog returns an ErrorLog writing to logger (nil discards),
// redacting the OTLP credentials that getenv (nil: os.Getenv) finds, and
// rate-limited by now (nil: time.Now).
func NewErrorLog(logger *slog.Logger, getenv func(string) string, now func() time.Time) *ErrorLog {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return &ErrorLog{logger: logger, redact: probe.NewRedactor(otlpSecrets(getenv)),
		limiter: NewLogLimiter[string](errorLogInterval, now)}
}

// Install makes e the OpenTelemetry SDK's error handler and logger
// (otel.SetErrorHandler, otel.SetLogger). Install it before creating
// the OTLP exporters, which log what they cannot parse of their
// environment variables (a header value, an endpoint) as they start.
func (e *ErrorLog) Install() {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(e.Handle))
	otel.SetLogger(e.SDKLogger())
}

// Handle logs err, redacted and cut, unless one was logged less than
// errorLogInterval ago: the first at once, then at most one a minute with
// the number of those not shown.
func (e *ErrorLog) Handle(err error) {
	if err == nil {
		return
	}
	held, ok := e.limiter.Allow("otlp")
	if !ok {
		return
	}
	e.logger.Warn("OpenTelemetry export failed", "error", e.redact.Bound(err.Error()), "similar_errors_not_logged", held)
}

// safe returns err as an error whose text is what, then err's text
// redacted and cut; nil for nil. It does not unwrap: nothing can reach the
// original text through it.
func (e *ErrorLog) safe(what string, err error) error {
	if err == nil {
		return nil
	}
	return redactedError(what + ": " + e.redact.Bound(err.Error()))
}

// redactedError is an error text that was redacted and cut.
type redactedError string

// Error implements error.
func (e redactedError) Error() string { return string(e) }

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
// e's logger with every string redacted and cut as Handle does.
func (e *ErrorLog) SDKLogger() logr.Logger {
	return logr.FromSlogHandler(&redactingHandler{inner: e.logger.Handler(), redact: e.redact})
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
