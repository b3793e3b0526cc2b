package openai

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// exchange is the state of one request and its response.
type exchange struct {
	req   *probe.Request
	rec   *probe.Record
	usage probe.Usage
	tr    *tracer
}

// Do sends req and returns its record; see probe.Backend.
func (b *Backend) Do(ctx context.Context, req *probe.Request) *probe.Record {
	if req == nil {
		req = &probe.Request{}
	}
	x := &exchange{req: req, rec: b.newRecord(req), tr: newTracer(b.cfg.Clock)}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	err := b.do(rctx, cancel, x)
	x.rec.HTTP = x.tr.snapshot()
	b.finish(ctx, rctx, x.rec, err)
	x.usage.Apply(x.rec, probe.Sent{PromptTokens: req.PromptTokens, Prompt: req.PromptTokens > 0, MaxOutputTokens: req.MaxOutputTokens})
	return x.rec
}

// newRecord returns the record of req before it is sent.
func (b *Backend) newRecord(req *probe.Request) *probe.Record {
	return &probe.Record{
		Target:                b.cfg.Target,
		Seq:                   req.Seq,
		API:                   b.cfg.API,
		Stream:                b.cfg.Stream,
		ConversationID:        req.ConversationID,
		Turn:                  req.Turn,
		TargetedStart:         req.TargetedStart,
		PredecessorDone:       req.PredecessorDone,
		RequestedOutputTokens: req.MaxOutputTokens,
	}
}

// do runs the request; it returns nil when the response was read completely
// and well-formed. cancel cancels rctx, the request's context.
func (b *Backend) do(rctx context.Context, cancel context.CancelCauseFunc, x *exchange) error {
	hreq, err := b.newRequest(x.tr.withTrace(rctx), x.req)
	if err != nil {
		return probe.Failf(probe.ErrorProtocol, "could not build request: %v", err)
	}
	stop := clock.CancelAfter(b.cfg.Clock, b.cfg.Timeout, cancel, probe.ErrTimeout)
	defer stop()
	x.rec.RequestStart = b.cfg.Clock.Now()
	resp, err := b.client.Do(hreq)
	if err != nil && staleConnWrite(err, x.tr.snapshot().ConnReused) {
		// The server had closed the kept-alive connection (llama.cpp does
		// after every stream) and the transport noticed only while writing
		// the request, too late for its own replay: send it once on a new
		// connection, as the transport does when it notices before writing.
		x.tr = newTracer(b.cfg.Clock)
		if hreq, err = b.newRequest(x.tr.withTrace(rctx), x.req); err == nil {
			resp, err = b.client.Do(hreq)
		}
	}
	if err != nil {
		return fmt.Errorf("could not send request: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	x.rec.HTTPStatus = resp.StatusCode
	switch {
	case resp.StatusCode >= 400 && encoded(resp) != "":
		drain(resp.Body)
		return b.statusFailure(resp, probe.ServerError{Message: encodingMessage(resp)})
	case resp.StatusCode >= 400:
		return b.statusError(resp)
	case resp.StatusCode >= 300:
		drain(resp.Body)
		return probe.Failf(probe.ErrorProtocol, "HTTP %d: redirect to %q not followed", resp.StatusCode, resp.Header.Get("Location"))
	case resp.StatusCode < 200:
		drain(resp.Body)
		return probe.Failf(probe.ErrorProtocol, "unexpected HTTP status %d", resp.StatusCode)
	case encoded(resp) != "":
		drain(resp.Body)
		return probe.Failf(probe.ErrorProtocol, "%s", encodingMessage(resp))
	case b.cfg.Stream:
		return b.readStream(resp, x)
	default:
		return b.readBody(resp, x)
	}
}

// staleConnWrite reports whether err is writing a request to a kept-alive
// connection (reused) that the server had closed: the write found the
// connection closed (by the transport, which saw the server's end) or
// broken. Such a request never reached the server.
func staleConnWrite(err error, reused bool) bool {
	var op *net.OpError
	if !reused || !errors.As(err, &op) || op.Op != "write" {
		return false
	}
	return errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// encoded returns the response's Content-Encoding when it is one other
// than identity, which the backend never asks for (every request says
// Accept-Encoding: identity): the body is then not what it claims to be
// read as, and is not read (compressed junk costs nothing); empty otherwise.
func encoded(resp *http.Response) string {
	for _, v := range resp.Header.Values("Content-Encoding") {
		for e := range strings.SplitSeq(v, ",") {
			if e = strings.TrimSpace(e); e != "" && !strings.EqualFold(e, "identity") {
				return v
			}
		}
	}
	return ""
}

// encodingMessage is the failure's text of an encoded response.
func encodingMessage(resp *http.Response) string {
	return fmt.Sprintf("response in Content-Encoding %q, which was not asked for: body not read", encoded(resp))
}
