package sim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// faultBody asks for 10 tokens, so mid-stream faults strike after
// faultAfterTokens(10) = min(3, 10/2) = 3 tokens.
const faultBody = `{"stream":true,"stream_options":{"include_usage":true},"max_tokens":10,` +
	`"messages":[{"role":"user","content":"two words"}]}`

func TestStreamFaults(t *testing.T) {
	tests := []struct {
		fault       string
		status      int
		contentType string
		want        []string // stream shape; nil for a body that is not a stream
		bodyHas     string   // for non-stream bodies
		reset       bool     // the read must end with a connection reset
		tokens      int      // token chunks the server logs as sent
	}{
		{fault: "", status: 200, contentType: "text/event-stream",
			want: seq("role", rep{"content", 10}, "finish length", "usage 2/10/12", "done"), tokens: 10},
		{fault: "none", status: 200, contentType: "text/event-stream",
			want: seq("role", rep{"content", 10}, "finish length", "usage 2/10/12", "done"), tokens: 10},
		{fault: "http_500", status: 500, contentType: "application/json", bodyHas: `"code":500`},
		{fault: "http_429", status: 429, contentType: "application/json", bodyHas: `"code":429`},
		{fault: "html", status: 200, contentType: "text/html; charset=utf-8", bodyHas: "<html>"},
		// The malformed event takes the place between tokens 3 and 4; all 10 still come.
		{fault: "malformed", status: 200, contentType: "text/event-stream",
			want: seq("role", rep{"content", 3}, "malformed", rep{"content", 7}, "finish length", "usage 2/10/12", "done"), tokens: 10},
		{fault: "error_event", status: 200, contentType: "text/event-stream",
			want: seq("role", rep{"content", 3}, "error 500"), tokens: 3},
		{fault: "truncated", status: 200, contentType: "text/event-stream",
			want: seq("role", rep{"content", 3}), tokens: 3},
		{fault: "reset", status: 200, contentType: "text/event-stream", reset: true, tokens: 3},
	}
	for _, tt := range tests {
		t.Run("fault "+tt.fault, func(t *testing.T) {
			s, c := start(t, Config{})
			resp := post(context.Background(), t, c, s.URL()+"/v1/chat/completions", faultBody, tt.fault)
			defer closeBody(resp)
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != tt.contentType {
				t.Fatalf("status %d content type %q, want %d %q",
					resp.StatusCode, resp.Header.Get("Content-Type"), tt.status, tt.contentType)
			}
			if tt.fault == "http_429" && resp.Header.Get("Retry-After") != "1" {
				t.Errorf("Retry-After %q, want 1", resp.Header.Get("Retry-After"))
			}
			checkStreamBody(t, resp.Body, tt.want, tt.bodyHas, tt.reset)
			l := logOf(t, s, 1)[0]
			wantFault := Fault(tt.fault)
			if tt.fault == "none" {
				wantFault = ""
			}
			if l.Fault != wantFault || len(l.TokenSent) != tt.tokens || l.Status != tt.status {
				t.Errorf("log fault %q tokens %d status %d, want %q %d %d",
					l.Fault, len(l.TokenSent), l.Status, wantFault, tt.tokens, tt.status)
			}
		})
	}
}

func checkStreamBody(t *testing.T, body io.Reader, want []string, has string, reset bool) {
	t.Helper()
	if want == nil && !reset {
		if b := readAll(t, body); !strings.Contains(string(b), has) {
			t.Errorf("body %q does not contain %q", b, has)
		}
		return
	}
	got := readSSE(body, nil)
	if reset {
		// Events may or may not be read before the reset; never more than
		// the role chunk and 3 tokens.
		if !errors.Is(got.err, syscall.ECONNRESET) || len(got.data) > 4 {
			t.Errorf("read %d events, error %v; want at most 4, then connection reset", len(got.data), got.err)
		}
		return
	}
	if got.err != nil {
		t.Errorf("stream ended with %v, want a clean end", got.err)
	}
	if kinds := shape(t, got.data, "chat.completion.chunk", DefaultModel); !slices.Equal(kinds, want) {
		t.Errorf("stream shape\n got %v\nwant %v", kinds, want)
	}
}

func TestUnaryFaults(t *testing.T) {
	const body = `{"max_tokens":10,"prompt":"two words"}`
	tests := []struct {
		fault   string
		status  int
		check   func(b []byte, err error) bool
		explain string
	}{
		{fault: "http_500", status: 500, check: validJSON, explain: "a JSON body"},
		{fault: "http_429", status: 429, check: validJSON, explain: "a JSON body"},
		{fault: "html", status: 200, check: func(b []byte, err error) bool {
			return err == nil && strings.Contains(string(b), "<html>")
		}, explain: "an HTML page"},
		{fault: "malformed", status: 200, check: func(b []byte, err error) bool {
			return err == nil && len(b) > 0 && !json.Valid(b)
		}, explain: "invalid JSON"},
		{fault: "error_event", status: 200, check: func(b []byte, err error) bool {
			return err == nil && strings.Contains(string(b), `"error":{`)
		}, explain: "an error object"},
		{fault: "truncated", status: 200, check: func(_ []byte, err error) bool {
			return errors.Is(err, io.ErrUnexpectedEOF)
		}, explain: "an unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run("fault "+tt.fault, func(t *testing.T) {
			s, c := start(t, Config{})
			resp := post(context.Background(), t, c, s.URL()+"/v1/completions", body, tt.fault)
			defer closeBody(resp)
			b, err := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !tt.check(b, err) {
				t.Errorf("status %d body %q error %v, want %d and %s", resp.StatusCode, b, err, tt.status, tt.explain)
			}
		})
	}
}

func validJSON(b []byte, err error) bool { return err == nil && json.Valid(b) }

func TestUnaryReset(t *testing.T) {
	s, c := start(t, Config{})
	_, err := postErr(context.Background(), c, s.URL()+"/v1/completions", `{"prompt":"x"}`, "reset")
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("error %v, want connection reset", err)
	}
	if l := logOf(t, s, 1)[0]; l.Fault != FaultReset || l.Status != 0 || len(l.ChunkSent) != 0 {
		t.Errorf("log %+v, want reset with nothing sent", l)
	}
}

func TestStallEndsOnClientCancel(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   string
		tokens int // tokens to read before cancelling
	}{
		{name: "stream", path: "/v1/chat/completions", body: faultBody, tokens: 3},
		{name: "unary", path: "/v1/completions", body: `{"prompt":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := start(t, Config{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			reached := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				resp, err := postErr(ctx, c, s.URL()+tt.path, tt.body, "stall")
				if err == nil {
					// The role chunk and tt.tokens tokens come before the stall.
					got := readSSE(resp.Body, func(i int, _ string) {
						if i == tt.tokens {
							close(reached)
						}
					})
					closeBody(resp)
					err = got.err
				}
				done <- err
			}()
			if tt.tokens > 0 {
				<-reached
			} else {
				waitFor(t, "the stalled request", func() bool { return s.InFlight() == 1 })
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("client error %v, want context canceled", err)
			}
			l := logOf(t, s, 1)[0]
			if l.Fault != FaultStall || !l.Canceled || len(l.TokenSent) != tt.tokens {
				t.Errorf("log %+v, want a canceled stall with %d tokens", l, tt.tokens)
			}
		})
	}
}
