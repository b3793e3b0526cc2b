package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// TestServerClosingAfterEveryResponse sends back-to-back requests to a server
// that closes the connection after each complete response without a
// "Connection: close" header, as llama.cpp does after a stream. The client may
// pick the closed connection from its pool before it notices the close; such
// a request never reached the server and must succeed on a new connection,
// not count as a connection error. Requests stay unretried otherwise: the
// replay header is not sent on the wire.
func TestServerClosingAfterEveryResponse(t *testing.T) {
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		body := `{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write([]byte(body))
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	b := newBackend(t, srv.URL+"/v1", client, func(c *Config) { c.Stream = false })
	for i := range 100 {
		rec := b.Do(context.Background(), &probe.Request{Seq: uint64(i), Messages: []probe.Message{{Role: "user", Content: "x"}}})
		if rec.Outcome != probe.Successful {
			t.Fatalf("request %d: %s/%s: %s", i, rec.Outcome, rec.ErrorType, rec.Error)
		}
	}
	if _, sent := seen[staleConnReplayKey]; sent {
		t.Errorf("the replay marker %s was sent on the wire", staleConnReplayKey)
	}
}
