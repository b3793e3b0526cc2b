package openai

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// tracer records the connection phases of one request. The transport may
// call it from its own goroutines, even after the request has ended (a dial
// that lost a race finishes in the background), so it holds a lock.
type tracer struct {
	clock clock.Clock
	mu    sync.Mutex
	t     probe.HTTPTrace
}

func newTracer(c clock.Clock) *tracer { return &tracer{clock: c} }

// withTrace returns ctx carrying the tracer's httptrace hooks.
func (tr *tracer) withTrace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart:          func(httptrace.DNSStartInfo) { tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.DNSStart }) },
		DNSDone:           func(httptrace.DNSDoneInfo) { tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.DNSDone }) },
		ConnectStart:      func(string, string) { tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.ConnectStart }) },
		ConnectDone:       tr.connectDone,
		TLSHandshakeStart: func() { tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.TLSStart }) },
		TLSHandshakeDone:  tr.tlsDone,
		GotConn:           tr.gotConn,
		WroteRequest: func(httptrace.WroteRequestInfo) {
			tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.WroteRequest })
		},
		GotFirstResponseByte: func() { tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.FirstByte }) },
	})
}

// mark sets the instant that field selects to now, unless it is already set.
func (tr *tracer) mark(field func(*probe.HTTPTrace) *time.Time) {
	now := tr.clock.Now()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if p := field(&tr.t); p.IsZero() {
		*p = now
	}
}

func (tr *tracer) connectDone(_, _ string, err error) {
	if err == nil {
		tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.ConnectDone })
	}
}

func (tr *tracer) tlsDone(_ tls.ConnectionState, err error) {
	if err == nil {
		tr.mark(func(t *probe.HTTPTrace) *time.Time { return &t.TLSDone })
	}
}

func (tr *tracer) gotConn(info httptrace.GotConnInfo) {
	tr.mark(func(t *probe.HTTPTrace) *time.Time {
		t.ConnReused = info.Reused
		return &t.GotConn
	})
}

// snapshot returns the phases recorded so far.
func (tr *tracer) snapshot() probe.HTTPTrace {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.t
}
