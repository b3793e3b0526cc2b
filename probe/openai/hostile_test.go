package openai

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/internal/endless"
)

// TestHostileResponses answers over loopback with what breaks HTTP or
// sends what was not asked for: each is the error type README's table
// gives, with a message naming what went wrong.
func TestHostileResponses(t *testing.T) {
	sseHead := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
	gz := endless.Gzip(content("x") + done)
	// A stream that ends at its finish reason, in one chunk.
	finishEvent := content("a") + data(`{"choices":[{"delta":{},"finish_reason":"stop"}]}`)
	finish := strconv.FormatInt(int64(len(finishEvent)), 16) + "\r\n" + finishEvent + "\r\n"
	tests := []struct {
		name, response string
		stream         bool
		typ            probe.ErrorType
		want           string
	}{
		{"headers past the limit", "HTTP/1.1 200 OK\r\nX-Junk: " + strings.Repeat("x", probe.MaxResponseHeaderBytes) + "\r\n\r\n",
			true, probe.ErrorProtocol, "server response headers exceeded 65536 bytes"},
		{"malformed chunk length", sseHead + "Transfer-Encoding: chunked\r\n\r\nzz\r\n" + content("a"),
			true, probe.ErrorProtocol, "invalid byte in chunk length"},
		{"chunk length line too long", sseHead + "Transfer-Encoding: chunked\r\n\r\n" + strings.Repeat("0", 5000) + "\r\n",
			true, probe.ErrorProtocol, "header line too long"},
		{"malformed status line", "HTTP/1.1 abc OK\r\n\r\n", true, probe.ErrorProtocol, "malformed HTTP status code"},
		{"trailer past net/http's bound", sseHead + "Transfer-Encoding: chunked\r\n\r\n" + finish + "0\r\nX-T: " + strings.Repeat("x", 1<<20) + "\r\n\r\n",
			true, probe.ErrorProtocol, "suspiciously long trailer"},
		{"two Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
			false, probe.ErrorProtocol, "multiple Content-Length headers"},
		{"uninvited gzip stream", sseHead + "Content-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(len(gz)) + "\r\n\r\n" + gz,
			true, probe.ErrorProtocol, `response in Content-Encoding "gzip", which was not asked for: body not read`},
		{"uninvited gzip whole body", "HTTP/1.1 200 OK\r\nContent-Encoding: br, gzip\r\nContent-Length: " + strconv.Itoa(len(gz)) + "\r\n\r\n" + gz,
			false, probe.ErrorProtocol, `response in Content-Encoding "br, gzip", which was not asked for`},
		{"uninvited gzip error body", "HTTP/1.1 503 Busy\r\nContent-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(len(gz)) + "\r\n\r\n" + gz,
			true, probe.ErrorHTTP5xx, `HTTP 503: response in Content-Encoding "gzip", which was not asked for`},
		{"identity is no encoding", sseHead + "Content-Encoding: identity\r\nContent-Length: " + strconv.Itoa(len(content("x")+done)) + "\r\n\r\n" + content("x") + done,
			true, probe.ErrorNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: &http.Transport{MaxResponseHeaderBytes: probe.MaxResponseHeaderBytes}}
			defer client.CloseIdleConnections()
			b := newBackend(t, rawServer(t, tt.response, false), client, func(c *Config) { c.Stream = tt.stream })
			rec := b.Do(context.Background(), request())
			if rec.ErrorType != tt.typ || !strings.Contains(rec.Error, tt.want) {
				t.Fatalf("%s %s %q, want %s with %q", rec.Outcome, rec.ErrorType, rec.Error, tt.typ, tt.want)
			}
		})
	}
}

// TestNoCompressionAsked: every request says Accept-Encoding: identity,
// so that even a transport with compression enabled (http.Transport's
// default) neither asks for gzip nor inflates an answer; a server that
// compresses anyway is refused unread.
func TestNoCompressionAsked(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	gz := endless.Gzip(content("x") + done)
	url, _ := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Header.Values("Accept-Encoding")...)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write([]byte(gz))
	}))
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	b := newBackend(t, url, client, func(c *Config) { c.Stream = true })
	rec := b.Do(context.Background(), request())
	if rec.ErrorType != probe.ErrorProtocol || !strings.Contains(rec.Error, `Content-Encoding "gzip"`) {
		t.Fatalf("%s %s %q, want protocol naming the encoding", rec.Outcome, rec.ErrorType, rec.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0] != "identity" {
		t.Fatalf("Accept-Encoding %q, want [identity]", asked)
	}
}

// TestProtocolTransportErrors: the texts of net/http's errors that say a
// response broke HTTP (HTTP/2's among them, which a test server cannot
// easily provoke) are protocol errors; others are not.
func TestProtocolTransportErrors(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"net/http: server response headers exceeded 65536 bytes; aborted", true},
		{"http2: response header list larger than advertised limit", true},
		{"stream error: stream ID 1; PROTOCOL_ERROR; received from peer", true},
		{"http2: server sent GOAWAY and closed the connection; LastStreamID=1, ErrCode=PROTOCOL_ERROR, debug=\"\"", true},
		{"connection error: FRAME_SIZE_ERROR", true},
		{"connection error: COMPRESSION_ERROR", true},
		{"malformed chunked encoding", true},
		{"http: suspiciously long trailer after chunked body", true},
		{`net/http: HTTP/1.x transport connection broken: unsupported transfer encoding: "x"`, true},
		{"stream error: stream ID 3; CANCEL", false},
		{"read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer", false},
		{"unexpected EOF", false},
	}
	for _, tt := range tests {
		if got := protocolError(errors.New(tt.text)); got != tt.want {
			t.Errorf("protocolError(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
