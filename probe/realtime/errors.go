package realtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
)

// finish sets the record's end, outcome, error type and error text from
// err, the result of the exchange. A cancelled parent makes the request
// incomplete, the backend's own timeout errored with ErrorTimeout; a
// failure for want of the prober's own resources (probe.ProberFailure)
// incomplete with ErrorProber; other failures without a known type are
// connection errors. Unlike the HTTP
// backend's, the contexts are asked before a known failure: ending the
// context closes the connection, and the read it breaks would otherwise
// be recorded as a protocol failure.
func (b *Backend) finish(parent, rctx context.Context, rec *probe.Record, err error) {
	if rec.End.IsZero() {
		rec.End = b.cfg.Clock.Now()
	}
	if err == nil {
		rec.Outcome, rec.ErrorType = probe.Successful, probe.ErrorNone
		return
	}
	rec.Outcome = probe.Errored
	var f *probe.Failure
	switch {
	case parent.Err() != nil:
		rec.Outcome, rec.ErrorType = probe.Incomplete, probe.ErrorCanceled
		err = fmt.Errorf("canceled: %w", context.Cause(parent))
	case errors.Is(context.Cause(rctx), probe.ErrTimeout):
		rec.ErrorType = probe.ErrorTimeout
		err = fmt.Errorf("request timed out after %v", b.cfg.Timeout)
	case errors.As(err, &f):
		rec.ErrorType, rec.ErrorCode = f.Type, b.redact.BoundCode(f.Code)
	case probe.ProberFailure(err):
		rec.Outcome, rec.ErrorType = probe.Incomplete, probe.ErrorProber
	default:
		rec.ErrorType = probe.ErrorConnection
	}
	rec.Error = b.redact.Bound(err.Error())
}

// handshakeBodyBytes bounds how much of a refused handshake's body is read.
const handshakeBodyBytes = 4096

// handshakeError classifies a failed handshake: a status ≥ 400 by its
// class, any other answer that is not an upgrade as a protocol error, as
// is an answer that is not HTTP at all; no answer is a connection error.
// A refusal's message and code come from its body (probe.ParseServerError),
// read up to handshakeBodyBytes and, when cut there, redacted first, its
// end too (probe.Redactor.Cut), so that no part of a key survives the cut.
func (b *Backend) handshakeError(err error, resp *http.Response) error {
	if resp == nil {
		if errors.Is(err, errHandshakeTooLarge) {
			return probe.Failf(probe.ErrorProtocol, "%v", errHandshakeTooLarge)
		}
		if notHTTP(err) {
			return probe.Failf(probe.ErrorProtocol, "handshake answer is not HTTP: %v", err)
		}
		return fmt.Errorf("could not connect: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, handshakeBodyBytes+1))
	if len(body) > handshakeBodyBytes {
		body = []byte(b.redact.Cut(string(body[:handshakeBodyBytes])))
	}
	typ := probe.ErrorProtocol
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		typ = probe.ErrorHTTP429
	case resp.StatusCode >= 500:
		typ = probe.ErrorHTTP5xx
	case resp.StatusCode >= 400:
		typ = probe.ErrorHTTP4xx
	}
	if typ == probe.ErrorProtocol {
		return probe.Failf(typ, "handshake answered HTTP %d instead of switching protocols", resp.StatusCode)
	}
	e := probe.ParseServerError(body)
	return &probe.Failure{Type: typ, Msg: fmt.Sprintf("handshake refused: HTTP %d: %s", resp.StatusCode, e.Message), Code: e.Code}
}

// notHTTP reports whether err is net/http's or net/textproto's verdict on
// a response it could not parse, however wrapped: a malformed status line
// ("malformed HTTP response", "… status code", "… version", worded so
// since Go 1) or a textproto.ProtocolError (malformed header lines).
func notHTTP(err error) bool {
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		return true
	}
	for ; err != nil; err = errors.Unwrap(err) {
		if strings.HasPrefix(err.Error(), "malformed HTTP ") {
			return true
		}
	}
	return false
}

// readError classifies a failed read before transcription.done: a clean
// close is a protocol error (the server ended without a result), a message
// over the size limit of maxBytes too, named in its text as HTTP's event
// limit is; anything else is a connection error.
func readError(err error, maxBytes int64) error {
	var ce *websocket.CloseError
	switch {
	case errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure:
		return probe.Failf(probe.ErrorProtocol, "connection closed (%d %s) before %s", ce.Code, ce.Text, EventDone)
	case errors.Is(err, websocket.ErrReadLimit):
		return probe.Failf(probe.ErrorProtocol, "server message too large: longer than %d bytes", maxBytes)
	}
	return fmt.Errorf("connection lost before %s: %w", EventDone, err)
}
