package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/llmprober/llmprober/probe"
)

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
	var f *probe.Failure
	switch {
	case errors.As(err, &f):
		rec.ErrorType, rec.ErrorCode = f.Type, b.redact.BoundCode(f.Code)
	case parent.Err() != nil:
		rec.Outcome, rec.ErrorType = probe.Incomplete, probe.ErrorCanceled
		err = fmt.Errorf("canceled: %w", context.Cause(parent))
	case errors.Is(context.Cause(rctx), probe.ErrTimeout):
		rec.ErrorType = probe.ErrorTimeout
		err = fmt.Errorf("request timed out after %v", b.cfg.Timeout)
	case probe.ProberFailure(err):
		rec.Outcome, rec.ErrorType = probe.Incomplete, probe.ErrorProber
	case protocolError(err):
		rec.ErrorType = probe.ErrorProtocol
	default:
		rec.ErrorType = transportType(err, !rec.HTTP.GotConn.IsZero())
	}
	rec.Error = b.redact.Bound(err.Error())
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
	return b.statusFailure(resp, b.bodyError(resp.Body))
}

// statusFailure returns the failure of an error response (HTTP status ≥
// 400) reporting e.
func (b *Backend) statusFailure(resp *http.Response, e probe.ServerError) error {
	typ := probe.ErrorHTTP4xx
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		typ = probe.ErrorHTTP429
	case resp.StatusCode >= 500:
		typ = probe.ErrorHTTP5xx
	}
	return serverFailure(typ, fmt.Sprintf("HTTP %d", resp.StatusCode), e)
}

// protocolErrors are the texts of the transport's errors that say the
// response broke HTTP itself, as the error-type table of docs/measurement.md calls them: protocol,
// not connection: headers past the limit (HTTP/1 and HTTP/2), a malformed
// status line, header, Content-Length, transfer encoding, chunked body or
// trailer (net/http's own bound on a trailer among them), an HTTP/2 peer
// that broke the protocol. net/http exports no type for any of them.
var protocolErrors = []string{
	"server response headers exceeded",
	"response header list larger than advertised limit",
	"malformed HTTP",
	"malformed MIME header",
	"malformed chunked encoding",
	"invalid byte in chunk length",
	"http chunk length too large",
	"chunked encoding contains too much non-data",
	"chunked line ends with bare LF",
	"invalid CR in chunked line",
	"empty hex number for chunk length",
	"suspiciously long trailer",
	"bad trailer key",
	"transfer encoding",
	"Content-Length",
	"header line too long",
	"PROTOCOL_ERROR",
	"FRAME_SIZE_ERROR",
	"COMPRESSION_ERROR",
	"http2: invalid",
}

// protocolError reports whether err, a failure of the transport, is one of
// protocolErrors.
func protocolError(err error) bool {
	text := err.Error()
	for _, s := range protocolErrors {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
