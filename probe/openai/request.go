package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/llmprober/llmprober/probe"
)

// staleConnReplayKey is the header net/http reads to treat a request as
// safe to replay on a stale kept-alive connection.
const staleConnReplayKey = "X-Idempotency-Key"

// newRequest builds the HTTP request for req.
func (b *Backend) newRequest(ctx context.Context, req *probe.Request) (*http.Request, error) {
	body, err := b.body(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, b.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header = b.header.Clone()
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if b.cfg.Stream {
		hreq.Header.Set("Accept", "text/event-stream")
	}
	if host := hreq.Header.Get("Host"); host != "" {
		hreq.Host = host
	}
	// An idempotency key with no value is not sent on the wire, but lets the
	// transport replay the request once on a new connection when a kept-alive
	// one turns out to have been closed by the server before it answered
	// anything (llama.cpp closes the connection after every stream without
	// saying so). That is the only replay: requests are never retried.
	hreq.Header[staleConnReplayKey] = nil
	return hreq, nil
}

// body returns the JSON request body: model, messages (chat) or prompt
// (completions, the messages' contents joined by newlines), stream,
// stream_options with include_usage when streaming, each max tokens field
// when MaxOutputTokens is positive, and ignore_eos when configured.
func (b *Backend) body(req *probe.Request) ([]byte, error) {
	m := map[string]any{"stream": b.cfg.Stream}
	if b.cfg.Model != "" {
		m["model"] = b.cfg.Model
	}
	if b.chat {
		msgs := req.Messages
		if msgs == nil {
			msgs = []probe.Message{}
		}
		m["messages"] = msgs
	} else {
		m["prompt"] = prompt(req.Messages)
	}
	if b.cfg.Stream {
		m["stream_options"] = map[string]bool{"include_usage": true}
	}
	if req.MaxOutputTokens > 0 {
		for _, f := range b.fields {
			m[f] = req.MaxOutputTokens
		}
	}
	if b.cfg.IgnoreEOS {
		m["ignore_eos"] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// prompt joins the messages' contents with newlines.
func prompt(msgs []probe.Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}
