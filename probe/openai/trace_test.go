package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func streamOK(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, content("a")+data(`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}`)+done)
}

// ordered reports whether every instant is set and none is before the one
// preceding it.
func ordered(ts ...time.Time) bool {
	for i, t := range ts {
		if t.IsZero() || (i > 0 && t.Before(ts[i-1])) {
			return false
		}
	}
	return true
}

func TestTraceNewAndReusedConnection(t *testing.T) {
	url, client := newTestServer(t, http.HandlerFunc(streamOK))
	b := newBackend(t, url, client, nil)
	first := b.Do(context.Background(), request())
	second := b.Do(context.Background(), request())
	for i, rec := range []*probe.Record{first, second} {
		if rec.Outcome != probe.Successful {
			t.Fatalf("request %d: %s %q", i, rec.Outcome, rec.Error)
		}
	}
	h := first.HTTP
	if h.ConnReused || !ordered(first.RequestStart, h.ConnectStart, h.ConnectDone, h.GotConn, h.WroteRequest, h.FirstByte, first.FirstChunk, first.End) {
		t.Errorf("first request on a new connection: %+v", h)
	}
	if !h.DNSStart.IsZero() || !h.TLSStart.IsZero() {
		t.Errorf("DNS or TLS recorded for a plain IP address: %+v", h)
	}
	h = second.HTTP
	if !h.ConnReused || !h.ConnectStart.IsZero() || !ordered(second.RequestStart, h.GotConn, h.WroteRequest, h.FirstByte, second.End) {
		t.Errorf("second request on a reused connection: %+v", h)
	}
}

func TestTraceTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(streamOK))
	client := srv.Client()
	defer srv.Close()
	defer client.CloseIdleConnections()
	rec := newBackend(t, srv.URL+"/v1", client, nil).Do(context.Background(), request())
	h := rec.HTTP
	if rec.Outcome != probe.Successful || !ordered(rec.RequestStart, h.ConnectStart, h.ConnectDone, h.TLSStart, h.TLSDone, h.GotConn, h.FirstByte) {
		t.Fatalf("outcome %s %q, trace %+v", rec.Outcome, rec.Error, h)
	}
}

func TestTraceDNS(t *testing.T) {
	url, client := newTestServer(t, http.HandlerFunc(streamOK))
	url = strings.Replace(url, "127.0.0.1", "localhost", 1)
	rec := newBackend(t, url, client, nil).Do(context.Background(), request())
	h := rec.HTTP
	if rec.Outcome != probe.Successful || !ordered(rec.RequestStart, h.DNSStart, h.DNSDone, h.ConnectStart, h.ConnectDone, h.GotConn, h.FirstByte) {
		t.Fatalf("outcome %s %q, trace %+v", rec.Outcome, rec.Error, h)
	}
}
