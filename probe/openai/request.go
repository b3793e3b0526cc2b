package openai

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"github.com/llmprober/llmprober/probe"
)

// staleConnReplayKey is the header net/http reads to treat a request as
// safe to replay on a stale kept-alive connection.
const staleConnReplayKey = "X-Idempotency-Key"

// newRequest builds the HTTP request for req.
func (b *Backend) newRequest(ctx context.Context, req *probe.Request) (*http.Request, error) {
	body, err := b.tmpl.body(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header = b.header.Clone()
	if b.host != "" {
		hreq.Host = b.host
	}
	return hreq, nil
}

// requestHeader returns the headers of every request of cfg: cfg.Header,
// Content-Type, Accept (JSON, or SSE when streaming), Accept-Encoding:
// identity (so that no transport asks for gzip and inflates what the
// server sends: a compressed body is refused, see encoded), and an idempotency
// key with no value. The key is not sent on the wire, but lets the
// transport replay the request once on a new connection when a kept-alive
// one turns out to have been closed by the server before it answered
// anything (llama.cpp closes the connection after every stream without
// saying so); Backend.do does the same when the transport notices only
// while writing (staleConnWrite). That is the only replay: requests are
// never retried.
func requestHeader(cfg Config) http.Header {
	h := cfg.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept-Encoding", "identity")
	h.Set("Accept", "application/json")
	if cfg.Stream {
		h.Set("Accept", "text/event-stream")
	}
	h[staleConnReplayKey] = nil
	return h
}

// prompt joins the messages' contents with newlines.
func prompt(msgs []probe.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}
