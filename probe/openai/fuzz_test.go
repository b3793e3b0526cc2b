package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// memTransport answers every request with one in-memory response.
type memTransport struct {
	status int
	ctype  string
	body   []byte
}

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{
		StatusCode: m.status,
		Header:     http.Header{"Content-Type": {m.ctype}},
		Body:       io.NopCloser(bytes.NewReader(m.body)),
		Request:    r,
	}, nil
}

const fuzzSecret = "sk-fuzz-secret"

// responseSeeds are bodies of every shape, streamed and whole, for the
// fuzzers.
var responseSeeds = []string{
	chatDelta(`{"role":"assistant"}`) + content("a") + data(`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}`) + done,
	data(`{"choices":[{"text":"x","finish_reason":"stop"}]}`),
	data(`{"error":{"message":"` + fuzzSecret + `"}}`),
	"event: error\ndata: " + fuzzSecret + "\n\n",
	`{"choices":[{"message":{"content":"hi"}}],"usage":{"completion_tokens":3}}`,
	`{"error":"x"}`,
	"data: {\"choices\":[{\"delta\":{\"tool_calls\":[1]}}]}\r\n\r\ndata: [DONE]",
	// Heartbeats, non-standard fields, content parts, odd usage.
	"data:\n\ndata: \n\ndata: : keepalive\n\n: ping\n\nevent: ping\n\n" + content("a") + done,
	"error: {\"code\":400,\"message\":\"" + fuzzSecret + "\"}\n\ndata: [DONE]\n\n",
	"event: error\n\n" + data(`{"type":"error","message":"m","code":"c"}`) + data(`{"object":"error","code":500}`),
	chatDelta(`{"content":[{"type":"text","text":"a"},{"type":"image_url"}]}`) + data(`{"choices":[],"usage":{"completion_tokens":9223372036854775807,"prompt_tokens":-1}}`) + done,
	data(`{"choices":[{"text":["a"]}],"usage":"n/a"}`) + data(`{}`) + done,
	`{"choices":[{"message":{"content":[{"text":{"value":"v"}}],"refusal":null}}],"usage":{"completion_tokens":1e30}}`,
	// Falsy and choice errors, bare reports, byte order marks, sniffed starts, typed codes.
	"\xef\xbb\xbf" + data(`{"choices":[{"delta":{"content":"a"},"error":{}}],"error":false}`) + data(`{"choices":[{"finish_reason":"error"}]}`),
	"\n\nda" + "ta: " + `{"detail":[1]}` + "\n\n" + data(`{"message":"m","code":{"k":"`+fuzzSecret+`"}}`),
	"\xef\xbb\xbf" + `{"choices":[{"text":"a","error":0}],"usage":{"completion_tokens":2}}`,
}

func FuzzResponse(f *testing.F) {
	seeds := responseSeeds
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, body []byte, mode uint8, stream bool) {
		statuses := []int{200, 200, 200, 204, 302, 404, 429, 500}
		ctypes := []string{"text/event-stream", "application/json", "text/html", ""}
		client := &http.Client{Transport: memTransport{
			status: statuses[int(mode)%len(statuses)],
			ctype:  ctypes[int(mode/8)%len(ctypes)],
			body:   body,
		}}
		b, err := New(Config{
			BaseURL: "http://127.0.0.1:1/v1", Stream: stream, Client: client, Secrets: []string{fuzzSecret},
			Clock: clock.NewFake(t0), MaxEventBytes: 256, MaxBodyBytes: 1024,
		})
		if err != nil {
			t.Fatal(err)
		}
		checkRecord(t, b.Do(context.Background(), request()), stream)
	})
}

// checkRecord checks what must hold for any response.
func checkRecord(t *testing.T, rec *probe.Record, stream bool) {
	t.Helper()
	switch rec.Outcome {
	case probe.Successful:
		if rec.ErrorType != probe.ErrorNone || rec.Error != "" {
			t.Fatalf("successful with error %s %q", rec.ErrorType, rec.Error)
		}
	case probe.Errored:
		if !slices.Contains(probe.ErrorTypes, rec.ErrorType) || rec.Error == "" {
			t.Fatalf("errored with type %q and error %q", rec.ErrorType, rec.Error)
		}
	default:
		t.Fatalf("outcome %q without cancellation", rec.Outcome)
	}
	if strings.Contains(rec.Error, fuzzSecret) || utf8.RuneCountInString(rec.Error) > probe.MaxErrorChars || !utf8.ValidString(rec.Error) {
		t.Fatalf("unsafe error text %q", rec.Error)
	}
	if rec.Iterations > rec.ChunkGaps.Chunks() || (rec.Iterations == 0) != rec.FirstToken.IsZero() {
		t.Fatalf("iterations %d, chunks %d, first token %v", rec.Iterations, rec.ChunkGaps.Chunks(), rec.FirstToken)
	}
	if !stream && (rec.ChunkGaps.Chunks() != 0 || rec.OutputTokensFrom == probe.TokensCounted) {
		t.Fatalf("a response without a stream has chunks or counted tokens")
	}
	if rec.OutputTokens < 0 || rec.PromptTokens < 0 || rec.OutputTokens > probe.MaxTokens || rec.PromptTokens > probe.MaxTokens {
		t.Fatalf("token counts %d, %d outside [0, %d]", rec.OutputTokens, rec.PromptTokens, probe.MaxTokens)
	}
	if rec.OutputTokensFrom == probe.TokensCounted && rec.OutputTokens != rec.Iterations {
		t.Fatalf("%d counted output tokens, %d token events", rec.OutputTokens, rec.Iterations)
	}
	if rec.OutputTokensFrom == probe.TokensFromUsage && rec.OutputTokens < rec.Iterations {
		t.Fatalf("usage of %d output tokens taken below %d token events", rec.OutputTokens, rec.Iterations)
	}
	if strings.Contains(rec.ErrorCode.Text, fuzzSecret) || utf8.RuneCountInString(rec.ErrorCode.Text) > probe.MaxErrorCodeChars {
		t.Fatalf("unsafe error code %q", rec.ErrorCode)
	}
}
