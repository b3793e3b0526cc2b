package openai

import (
	"context"
	"fmt"

	"github.com/llmprober/llmprober/probe"
)

// exchange is the state of one request and its response.
type exchange struct {
	req *probe.Request
	rec *probe.Record
	tok tokens
	tr  *tracer
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
	x.tok.apply(x.rec, req)
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
		return fail(probe.ErrorProtocol, "could not build request: %v", err)
	}
	stop := b.armTimeout(cancel)
	defer stop()
	x.rec.RequestStart = b.cfg.Clock.Now()
	resp, err := b.client.Do(hreq)
	if err != nil {
		return fmt.Errorf("could not send request: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	x.rec.HTTPStatus = resp.StatusCode
	switch {
	case resp.StatusCode >= 400:
		return b.statusError(resp)
	case resp.StatusCode >= 300:
		drain(resp.Body)
		return fail(probe.ErrorProtocol, "HTTP %d: redirect to %q not followed", resp.StatusCode, resp.Header.Get("Location"))
	case resp.StatusCode < 200:
		drain(resp.Body)
		return fail(probe.ErrorProtocol, "unexpected HTTP status %d", resp.StatusCode)
	case b.cfg.Stream:
		return b.readStream(resp, x)
	default:
		return b.readBody(resp, x)
	}
}

// armTimeout starts the request timeout on the backend's clock; when it
// fires, the request's context is cancelled with errTimeout. The returned
// function stops it and waits for its goroutine.
func (b *Backend) armTimeout(cancel context.CancelCauseFunc) func() {
	if b.cfg.Timeout <= 0 {
		return func() {}
	}
	t := b.cfg.Clock.NewTimer(b.cfg.Timeout)
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-t.C():
			cancel(errTimeout)
		case <-quit:
		}
	}()
	return func() {
		t.Stop()
		close(quit)
		<-exited
	}
}
