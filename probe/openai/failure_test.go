package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		name     string
		script   script
		maxEvent int
		errType  probe.ErrorType
		errText  string // Record.Error, exactly
		counts   counts
		duration time.Duration
	}{
		{
			name: "error object mid-stream",
			script: script{steps: []step{
				{ms(10), content("a")},
				{ms(10), data(`{"error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}`)},
			}},
			errType:  probe.ErrorStream,
			errText:  "stream error: CUDA out of memory",
			counts:   counts{chunks: 2, iterations: 1, output: 1, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(20),
		},
		{
			name: "error string mid-stream",
			script: script{steps: []step{
				{ms(10), content("a")},
				{ms(5), data(`{"error":"model crashed"}`)},
			}},
			errType:  probe.ErrorStream,
			errText:  "stream error: model crashed",
			counts:   counts{chunks: 2, iterations: 1, output: 1, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(15),
		},
		{
			name: "SSE error event",
			script: script{steps: []step{
				{ms(10), content("a")},
				{ms(30), "event: error\ndata: {\"message\":\"overloaded\"}\n\n"},
			}},
			errType:  probe.ErrorStream,
			errText:  "stream error: overloaded",
			counts:   counts{chunks: 1, iterations: 1, output: 1, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(40),
		},
		{
			name: "malformed chunk",
			script: script{steps: []step{
				{ms(10), content("a")},
				{ms(10), data(`{"choices":[{"delta":{"content":"b"}}]`)},
			}},
			errType:  probe.ErrorProtocol,
			errText:  "malformed stream chunk: unexpected end of JSON input",
			counts:   counts{chunks: 2, iterations: 1, output: 1, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(20),
		},
		{
			name: "stream that ends without DONE or a finish reason",
			script: script{steps: []step{
				{ms(10), content("a")},
				{ms(10), content("b")},
			}},
			errType:  probe.ErrorProtocol,
			errText:  "stream ended early: no [DONE] and no finish_reason",
			counts:   counts{chunks: 2, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(20),
		},
		{
			name: "event larger than the limit",
			script: script{steps: []step{
				{ms(10), content("a")},
				{ms(10), content(strings.Repeat("x", 200))},
			}},
			maxEvent: 100,
			errType:  probe.ErrorProtocol,
			errText:  "event too large: line longer than 100 bytes",
			counts:   counts{chunks: 1, iterations: 1, output: 1, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(20),
		},
		{
			name: "HTML page with status 200",
			script: script{contentType: "text/html; charset=utf-8", steps: []step{
				{ms(30), "<html>\n<body>Login required</body>\n</html>\n"},
			}},
			errType:  probe.ErrorProtocol,
			errText:  `unexpected content type "text/html; charset=utf-8" for a stream: <html> <body>Login required</body> </html>`,
			counts:   counts{outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(30),
		},
		{
			name: "JSON error with status 200 instead of a stream",
			script: script{contentType: "application/json", steps: []step{
				{ms(5), `{"error":{"message":"stream not supported"}}`},
			}},
			errType:  probe.ErrorProtocol,
			errText:  `server ignored stream: true: the body is JSON, not SSE: stream not supported`,
			counts:   counts{outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			duration: ms(5),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.script
			rec := runScript(t, &s, func(c *Config) { c.MaxEventBytes = tt.maxEvent })
			if rec.Outcome != probe.Errored || rec.ErrorType != tt.errType || rec.Error != tt.errText {
				t.Fatalf("outcome = %s/%s %q, want errored/%s %q", rec.Outcome, rec.ErrorType, rec.Error, tt.errType, tt.errText)
			}
			if rec.HTTPStatus != 200 {
				t.Errorf("status = %d, want 200", rec.HTTPStatus)
			}
			if got := countsOf(rec); got != tt.counts {
				t.Errorf("counts = %+v, want %+v", got, tt.counts)
			}
			if d, ok := rec.Duration(); !ok || d != tt.duration {
				t.Errorf("duration = %v, %v; want %v", d, ok, tt.duration)
			}
			if d, ok := rec.Latency(); !ok || d != tt.duration {
				t.Errorf("latency = %v, %v; want %v (an errored request finished)", d, ok, tt.duration)
			}
		})
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		ctype   string
		body    string
		stream  bool
		errType probe.ErrorType
		errText string
	}{
		{
			name: "500 with an OpenAI-style error object", status: 500, stream: true,
			body:    `{"error":{"message":"internal failure","type":"server_error","code":null}}`,
			errType: probe.ErrorHTTP5xx, errText: "HTTP 500: internal failure",
		},
		{
			name: "429 rate limit", status: 429, stream: true,
			body:    `{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`,
			errType: probe.ErrorHTTP429, errText: "HTTP 429: Rate limit reached",
		},
		{
			name: "404 with a vLLM-style top-level message", status: 404,
			body:    `{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`,
			errType: probe.ErrorHTTP4xx, errText: "HTTP 404: The model `x` does not exist.",
		},
		{
			name: "422 with a FastAPI detail", status: 422, stream: true,
			body:    `{"detail":"Unprocessable"}`,
			errType: probe.ErrorHTTP4xx, errText: "HTTP 422: Unprocessable",
		},
		{
			name: "400 with an error string", status: 400,
			body:    `{"error":"max_tokens too large"}`,
			errType: probe.ErrorHTTP4xx, errText: "HTTP 400: max_tokens too large",
		},
		{
			name: "502 HTML page from a proxy", status: 502, ctype: "text/html", stream: true,
			body:    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n</html>",
			errType: probe.ErrorHTTP5xx, errText: "HTTP 502: <html> <head><title>502 Bad Gateway</title></head> </html>",
		},
		{
			name: "503 with an empty body", status: 503,
			errType: probe.ErrorHTTP5xx, errText: "HTTP 503",
		},
		{
			name: "a long message is cut to 200 characters", status: 500,
			body:    `{"error":{"message":"` + strings.Repeat("é", 300) + `"}}`,
			errType: probe.ErrorHTTP5xx, errText: "HTTP 500: " + strings.Repeat("é", 200-len([]rune("HTTP 500: "))-1) + "…",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctype := tt.ctype
			if ctype == "" {
				ctype = "application/json"
			}
			s := &script{status: tt.status, contentType: ctype, steps: []step{{ms(40), tt.body}}}
			rec := runScript(t, s, func(c *Config) { c.Stream = tt.stream })
			if rec.Outcome != probe.Errored || rec.ErrorType != tt.errType || rec.Error != tt.errText {
				t.Fatalf("outcome = %s/%s %q, want errored/%s %q", rec.Outcome, rec.ErrorType, rec.Error, tt.errType, tt.errText)
			}
			if rec.HTTPStatus != tt.status {
				t.Errorf("status = %d, want %d", rec.HTTPStatus, tt.status)
			}
			// The end is when the error body was read, 40 ms after the start.
			if d, ok := rec.Duration(); !ok || d != ms(40) {
				t.Errorf("duration = %v, %v; want 40ms", d, ok)
			}
			if _, ok := rec.TTFT(); ok || rec.ChunkGaps.Chunks() != 0 {
				t.Errorf("an error response has TTFT or %d chunks", rec.ChunkGaps.Chunks())
			}
		})
	}
}
