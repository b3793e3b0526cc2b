package realtime_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// script is a hand-written server: it sends session.created, reads the
// client's events in the background, and once the first audio chunk has
// arrived (or the final commit, with afterFinal) writes msgs, then does
// end; final is closed once the client's final commit has arrived.
type script struct {
	msgs       []string
	afterFinal bool
	end        func(c *websocket.Conn, final <-chan struct{})
}

// serve starts a server playing sc; it is closed when the test ends.
func serve(t *testing.T, sc script) string {
	t.Helper()
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		read, audio, final := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(read)
			seen, ended := false, false
			for {
				_, m, err := c.ReadMessage()
				if err != nil {
					return
				}
				if !seen && strings.Contains(string(m), realtime.EventAppend) {
					seen = true
					close(audio)
				}
				if !ended && strings.Contains(string(m), `"final":true`) {
					ended = true
					close(final)
				}
			}
		}()
		_ = c.WriteMessage(websocket.TextMessage, []byte(`{"type":"session.created","id":"s"}`))
		<-audio
		if sc.afterFinal {
			<-final
		}
		for _, m := range sc.msgs {
			_ = c.WriteMessage(websocket.TextMessage, []byte(m))
		}
		if sc.end != nil {
			sc.end(c, final)
		}
		<-read
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// closeNormally sends a close frame and closes, once the client has sent
// all its audio (so the close is not cut short by a reset).
func closeNormally(c *websocket.Conn, final <-chan struct{}) {
	<-final
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(time.Second))
	_ = c.Close()
}

// drop cuts the TCP connection without a close frame.
func drop(c *websocket.Conn, _ <-chan struct{}) {
	if tc, ok := c.NetConn().(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

const delta = `{"type":"transcription.delta","delta":" hi"}`

func TestBadServers(t *testing.T) {
	unknown := func(n int) []string {
		msgs := make([]string, n)
		for i := range msgs {
			msgs[i] = `{"type":"vendor.thing"}`
		}
		return msgs
	}
	cases := []struct {
		name    string
		sc      script
		typ     probe.ErrorType
		message string
	}{
		{"dropped mid-stream", script{msgs: []string{delta}, end: drop}, probe.ErrorConnection, ""}, // the reader or the writer sees it first
		{"closed cleanly before done", script{msgs: []string{delta}, end: closeNormally}, probe.ErrorProtocol, "before transcription.done"},
		{"malformed JSON", script{msgs: []string{delta, `{"type": "transcription.delta", "delta": `}}, probe.ErrorProtocol, "malformed event"},
		{"event without type", script{msgs: []string{`{"delta":"x"}`}}, probe.ErrorProtocol, "no type"},
		{"a delta that is a number", script{msgs: []string{delta, `{"type":"transcription.delta","delta":5}`}}, probe.ErrorProtocol,
			"malformed event: text is not a string, a content part or an array of them"},
		{"a delta part whose text is a number", script{msgs: []string{`{"type":"transcription.delta","delta":[{"type":"text","text":5}]}`}},
			probe.ErrorProtocol, "malformed event: text is not a string, a content part or an array of them"},
		{"a transcript that is a number", script{msgs: []string{delta, `{"type":"transcription.done","text":5}`}, afterFinal: true},
			probe.ErrorProtocol, "malformed event: text is not a string, a content part or an array of them"},
		{"binary message", script{end: func(c *websocket.Conn, _ <-chan struct{}) { _ = c.WriteMessage(websocket.BinaryMessage, []byte{1, 2}) }}, probe.ErrorProtocol, "binary"},
		{"unknown events past the bound", script{msgs: unknown(4)}, probe.ErrorProtocol, `more than 3 events of unknown types (the last "vendor.thing")`},
		{"error as a string (vLLM)", script{msgs: []string{delta, `{"type":"error","error":"model not loaded","code":"x"}`}}, probe.ErrorStream, "server error event: model not loaded"},
		{"error as an object (OpenAI)", script{msgs: []string{`{"type":"error","error":{"type":"invalid_request_error","message":"bad audio"}}`}}, probe.ErrorStream, "server error event: bad audio"},
		{"transcription failed (OpenAI)", script{msgs: []string{delta, `{"type":"conversation.item.input_audio_transcription.failed","item_id":"i","content_index":0,"error":{"type":"transcription_error","code":"audio_unintelligible","message":"audio unintelligible"}}`}, afterFinal: true},
			probe.ErrorStream, "transcription failed: audio unintelligible"},
		{"never done", script{msgs: []string{delta}}, probe.ErrorTimeout, "timed out after 300ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBackend(t, realtime.Config{BaseURL: serve(t, c.sc), Timeout: 300 * time.Millisecond, MaxUnknownEvents: 3})
			rec := do(b)
			checkOutcome(t, rec, probe.Errored, c.typ)
			if !strings.Contains(rec.Error, c.message) {
				t.Errorf("error %q, want it to contain %q", rec.Error, c.message)
			}
			if !rec.End.After(rec.RequestStart) {
				t.Errorf("end %v not after request start %v", rec.End, rec.RequestStart)
			}
		})
	}
}

// TestUnknownEventsWithinBound checks that unknown and known ignorable
// events are skipped, and the OpenAI spellings are accepted.
func TestUnknownEventsWithinBound(t *testing.T) {
	msgs := []string{`{"type":"vendor.a"}`, `{"type":"session.updated"}`, `{"type":"vendor.b"}`,
		`{"type":"conversation.item.input_audio_transcription.delta","item_id":"i","delta":"a"}`,
		`{"type":"conversation.item.input_audio_transcription.delta","item_id":"i","delta":""}`,
		`{"type":"input_audio_buffer.committed"}`, `{"type":"vendor.c"}`, delta,
		`{"type":"conversation.item.input_audio_transcription.completed","transcript":"a hi","usage":{"type":"tokens","input_tokens":7,"output_tokens":2,"total_tokens":9}}`}
	b := newBackend(t, realtime.Config{BaseURL: serve(t, script{msgs: msgs, afterFinal: true}), Timeout: 5 * time.Second, MaxUnknownEvents: 3})
	rec := do(b)
	checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
	if rec.Iterations != 2 || rec.ChunkGaps.Chunks() != 4 || rec.OutputTokens != 2 || rec.PromptTokens != 7 {
		t.Errorf("%d iterations, %d chunks, %d output and %d prompt tokens; want 2, 4, 2, 7",
			rec.Iterations, rec.ChunkGaps.Chunks(), rec.OutputTokens, rec.PromptTokens)
	}
}

// TestCountedTokensWithoutUsage checks the token count falls back to the
// number of non-empty deltas.
func TestCountedTokensWithoutUsage(t *testing.T) {
	msgs := []string{delta, delta, delta, `{"type":"transcription.done","text":"hi hi hi"}`}
	rec := do(newBackend(t, realtime.Config{BaseURL: serve(t, script{msgs: msgs, afterFinal: true}), Timeout: 5 * time.Second}))
	checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
	if rec.OutputTokens != 3 || rec.OutputTokensFrom != probe.TokensCounted || rec.PromptTokensFrom != probe.TokensUnknown {
		t.Errorf("output %d from %q, prompt from %q; want 3 counted, unknown", rec.OutputTokens, rec.OutputTokensFrom, rec.PromptTokensFrom)
	}
}

// TestDoneBeforeCommit checks that a final transcript that comes while
// the audio is still being sent is a protocol error, in either spelling:
// with real-time pacing on a clock that never moves, the client is still
// waiting to send its second chunk when the server's answer to the first
// arrives.
func TestDoneBeforeCommit(t *testing.T) {
	for _, done := range []string{`{"type":"transcription.done","text":"hi"}`,
		`{"type":"conversation.item.input_audio_transcription.completed","item_id":"i","transcript":"hi"}`} {
		b := newBackend(t, realtime.Config{BaseURL: serve(t, script{msgs: []string{delta, done}}),
			Pacing: realtime.PacingRealtime, Clock: clock.NewFake(t0)})
		rec := do(b)
		checkOutcome(t, rec, probe.Errored, probe.ErrorProtocol)
		want := "transcription done before the input was committed"
		if !strings.HasPrefix(rec.Error, want) || rec.Sent.Len() != 1 {
			t.Errorf("error %q, %d chunks sent; want it to start %q, 1", rec.Error, rec.Sent.Len(), want)
		}
	}
}

func TestHandshakeRefused(t *testing.T) {
	for _, c := range []struct {
		status int
		typ    probe.ErrorType
	}{{401, probe.ErrorHTTP4xx}, {429, probe.ErrorHTTP429}, {503, probe.ErrorHTTP5xx}, {200, probe.ErrorProtocol}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(c.status)
			_, _ = w.Write([]byte(`{"error":{"message":"key sk-secret-123 rejected"}}`))
		}))
		b := newBackend(t, realtime.Config{BaseURL: srv.URL + "/v1", Secrets: []string{"sk-secret-123"}, Timeout: 5 * time.Second})
		rec := do(b)
		srv.Close()
		checkOutcome(t, rec, probe.Errored, c.typ)
		if rec.HTTPStatus != c.status || strings.Contains(rec.Error, "sk-secret") {
			t.Errorf("HTTP %d: status %d, error %q; want the status and the key redacted", c.status, rec.HTTPStatus, rec.Error)
		}
		if c.status == 401 && rec.Error != "handshake refused: HTTP 401: key REDACTED rejected" {
			t.Errorf("error %q", rec.Error)
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	rec := do(newBackend(t, realtime.Config{BaseURL: "http://" + addr + "/v1", Timeout: 5 * time.Second}))
	checkOutcome(t, rec, probe.Errored, probe.ErrorConnection)
}

// TestCanceled checks that a request cancelled by its parent is
// incomplete and leaves no goroutine behind.
func TestCanceled(t *testing.T) {
	b := newBackend(t, realtime.Config{BaseURL: serve(t, script{msgs: []string{delta}})})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *probe.Record)
	go func() { done <- b.Do(ctx, &probe.Request{}) }()
	time.AfterFunc(50*time.Millisecond, cancel)
	rec := <-done
	checkOutcome(t, rec, probe.Incomplete, probe.ErrorCanceled)
}

func TestNewRejects(t *testing.T) {
	for name, cfg := range map[string]realtime.Config{
		"no audio":       {BaseURL: "http://h/v1"},
		"bad scheme":     {BaseURL: "ftp://h/v1", Audio: []byte{0, 0}},
		"relative path":  {BaseURL: "http://h/v1", Path: "v1/realtime", Audio: []byte{0, 0}},
		"unknown pacing": {BaseURL: "http://h/v1", Pacing: "slow", Audio: []byte{0, 0}},
	} {
		if _, err := realtime.New(cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
