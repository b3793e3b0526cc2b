package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func TestNonStream(t *testing.T) {
	tests := []struct {
		name    string
		api     string
		ctype   string
		body    string
		maxBody int64
		outcome probe.Outcome
		errType probe.ErrorType
		errText string
		counts  counts
		tpot    time.Duration
	}{
		{
			name:    "chat with usage",
			body:    `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi there","reasoning_content":"hmm"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`,
			outcome: probe.Successful,
			counts:  counts{output: 2, outputFrom: probe.TokensFromUsage, prompt: 9, promptFrom: probe.TokensFromUsage},
			tpot:    ms(200) / 2, // without a stream LastToken is End: 200 ms / 2 tokens
		},
		{
			name:    "completions with usage",
			api:     "completions",
			body:    `{"object":"text_completion","choices":[{"index":0,"text":"abc","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":16}}`,
			outcome: probe.Successful,
			counts:  counts{output: 16, outputFrom: probe.TokensFromUsage, prompt: 3, promptFrom: probe.TokensFromUsage},
			tpot:    ms(200) / 16,
		},
		{
			name:    "no usage leaves the output count unknown",
			body:    `{"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`,
			outcome: probe.Successful,
			counts:  counts{prompt: 7, promptFrom: probe.TokensFromWorkload},
			tpot:    -1,
		},
		{
			name:    "HTML instead of JSON",
			ctype:   "text/html",
			body:    "<!DOCTYPE html><html><body>Sign in</body></html>",
			outcome: probe.Errored, errType: probe.ErrorProtocol,
			errText: "could not decode response: invalid character '<' looking for beginning of value: <!DOCTYPE html><html><body>Sign in</body></html>",
			counts:  counts{prompt: 7, promptFrom: probe.TokensFromWorkload},
			tpot:    -1,
		},
		{
			name:    "JSON error with status 200",
			body:    `{"error":{"message":"busy"}}`,
			outcome: probe.Errored, errType: probe.ErrorProtocol, errText: "error in response: busy",
			counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload},
			tpot:   -1,
		},
		{
			name:    "no choices",
			body:    `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`,
			outcome: probe.Errored, errType: probe.ErrorProtocol, errText: "response has no choices",
			counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload},
			tpot:   -1,
		},
		{
			name:    "body larger than the limit",
			body:    `{"choices":[{"text":"` + strings.Repeat("x", 100) + `"}]}`,
			maxBody: 64,
			outcome: probe.Errored, errType: probe.ErrorProtocol, errText: "response body larger than 64 bytes",
			counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload},
			tpot:   -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctype := tt.ctype
			if ctype == "" {
				ctype = "application/json"
			}
			s := &script{contentType: ctype, steps: []step{{ms(200), tt.body}}}
			rec := runScript(t, s, func(c *Config) {
				c.Stream = false
				c.MaxBodyBytes = tt.maxBody
				if tt.api != "" {
					c.API = tt.api
				}
			})
			if rec.Outcome != tt.outcome || rec.ErrorType != tt.errType || rec.Error != tt.errText {
				t.Fatalf("outcome = %s/%s %q, want %s/%s %q", rec.Outcome, rec.ErrorType, rec.Error, tt.outcome, tt.errType, tt.errText)
			}
			if got := countsOf(rec); got != tt.counts {
				t.Errorf("counts = %+v, want %+v", got, tt.counts)
			}
			// No stream: no chunks, no first token; the end is when the body was read.
			want := timings{firstChunk: -1, ttft: -1, ttfot: -1, itl: -1, tpot: tt.tpot, duration: ms(200)}
			if got := timingsOf(rec); got != want {
				t.Errorf("timings = %+v, want %+v", got, want)
			}
			if rec.Stream || rec.HTTPStatus != 200 {
				t.Errorf("stream = %v, status = %d; want false, 200", rec.Stream, rec.HTTPStatus)
			}
		})
	}
}
