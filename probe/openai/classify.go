package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"unicode"

	"github.com/llmprober/llmprober/probe"
)

// errTimeout is the cause given to a request's context when the backend's
// own timeout fires.
var errTimeout = errors.New("request timeout")

// failure is a request failure whose error type is already known (the
// server answered, but not well).
type failure struct {
	typ probe.ErrorType
	msg string
}

func (f *failure) Error() string { return f.msg }

// fail returns a failure of type typ with a formatted message.
func fail(typ probe.ErrorType, format string, args ...any) error {
	return &failure{typ: typ, msg: fmt.Sprintf(format, args...)}
}

// finish sets the record's end, outcome, error type and error text from the
// result of do; rec.HTTP must be set already. Transport errors are told
// apart by the contexts: a cancelled parent makes the request incomplete,
// the backend's own timeout makes it errored with ErrorTimeout.
func (b *Backend) finish(parent, rctx context.Context, rec *probe.Record, err error) {
	if rec.End.IsZero() {
		rec.End = b.cfg.Clock.Now()
	}
	if err == nil {
		rec.Outcome, rec.ErrorType = probe.Successful, probe.ErrorNone
		return
	}
	rec.Outcome = probe.Errored
	var f *failure
	switch {
	case errors.As(err, &f):
		rec.ErrorType = f.typ
	case parent.Err() != nil:
		rec.Outcome, rec.ErrorType = probe.Incomplete, probe.ErrorCanceled
		err = fmt.Errorf("canceled: %w", context.Cause(parent))
	case errors.Is(context.Cause(rctx), errTimeout):
		rec.ErrorType = probe.ErrorTimeout
		err = fmt.Errorf("request timed out after %v", b.cfg.Timeout)
	default:
		rec.ErrorType = transportType(err, !rec.HTTP.GotConn.IsZero())
	}
	rec.Error = b.bound(err.Error())
}

// transportType classifies a failure of the transport: before a connection
// was obtained (DNS, dial, TLS, even when one of those timed out) it is a
// connection error; afterwards a timeout of the client or transport (their
// own limits, not the backend's) is a timeout, anything else a connection error.
func transportType(err error, connected bool) probe.ErrorType {
	var ne net.Error
	if connected && errors.As(err, &ne) && ne.Timeout() {
		return probe.ErrorTimeout
	}
	return probe.ErrorConnection
}

// statusError reads an error response (HTTP status ≥ 400) and returns its failure.
func (b *Backend) statusError(resp *http.Response) error {
	typ := probe.ErrorHTTP4xx
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		typ = probe.ErrorHTTP429
	case resp.StatusCode >= 500:
		typ = probe.ErrorHTTP5xx
	}
	if msg := bodyMessage(readLimited(resp.Body)); msg != "" {
		return fail(typ, "HTTP %d: %s", resp.StatusCode, msg)
	}
	return fail(typ, "HTTP %d", resp.StatusCode)
}

// maxErrorChars bounds the length of Record.Error, in characters.
const maxErrorChars = 200

// bound makes error text safe to show: secrets replaced by "REDACTED",
// white space and control characters collapsed to single spaces, invalid
// UTF-8 replaced, and the result cut to maxErrorChars characters. Secrets
// are replaced before cutting, so a cut can never leave part of one.
func (b *Backend) bound(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for _, secret := range b.secrets {
		s = strings.ReplaceAll(s, secret, "REDACTED")
	}
	s = strings.Join(strings.FieldsFunc(s, isSpaceOrControl), " ")
	if r := []rune(s); len(r) > maxErrorChars {
		s = string(r[:maxErrorChars-1]) + "…"
	}
	return s
}

func isSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// secretsLongestFirst returns the non-empty secrets, longest first, so that a
// secret containing another is replaced whole.
func secretsLongestFirst(secrets []string) []string {
	out := slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return s == "" })
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
