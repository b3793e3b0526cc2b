package openai

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// llamaServer returns the base URL of the llama-server CI starts
// (LLMPROBER_LLAMA_URL); without one the test is skipped, unless
// LLMPROBER_REQUIRE_INTEGRATION=1 makes that a failure.
func llamaServer(t *testing.T) string {
	t.Helper()
	u := os.Getenv("LLMPROBER_LLAMA_URL")
	if u == "" {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("LLMPROBER_REQUIRE_INTEGRATION=1 but LLMPROBER_LLAMA_URL is not set")
		}
		t.Skip("no llama-server: set LLMPROBER_LLAMA_URL (see .ci/run)")
	}
	return u
}

// TestIntegrationLlamaServerJudged sends llama.cpp a streamed and a whole
// request, both forced to 16 tokens, and one whose prompt exceeds the
// server's context: the replies are successful with consistent usage and
// conform to a latency-only objective set; the oversized one is an http_4xx
// whose code and message come from llama.cpp's error body.
func TestIntegrationLlamaServerJudged(t *testing.T) {
	base := llamaServer(t)
	client := &http.Client{}
	defer client.CloseIdleConnections()
	req := func(words int) *probe.Request {
		return &probe.Request{Messages: []probe.Message{{Role: "user", Content: "probe " + strings.Repeat("hello world ", words)}},
			PromptTokens: 2 * words, MaxOutputTokens: 16}
	}
	for _, stream := range []bool{true, false} {
		b := newBackend(t, base+"/v1", client, func(c *Config) {
			c.Model, c.Stream, c.IgnoreEOS, c.Timeout = "random-llama", stream, true, 20*time.Second
		})
		rec := b.Do(context.Background(), req(8))
		if rec.Outcome != probe.Successful || rec.UsageInconsistent || rec.TokensClamped || !rec.HasOutput() ||
			rec.OutputTokens != 16 || rec.OutputTokensFrom != probe.TokensFromUsage || rec.PromptTokensFrom != probe.TokensFromUsage {
			t.Errorf("stream %v: %+v", stream, rec)
		}
		if stream && (rec.Iterations < 1 || rec.Iterations > 16 || rec.ChunkGaps.Chunks() <= rec.Iterations) {
			t.Errorf("stream: %d token events in %d chunks, want 1 to 16 events and more chunks", rec.Iterations, rec.ChunkGaps.Chunks())
		}
		if got := latencyOnly.Evaluate(rec); got != conforming {
			t.Errorf("stream %v: verdict %+v, want conforming", stream, got)
		}
		// The server's context is 4096 tokens over 4 slots: 3000 words do not fit.
		rec = b.Do(context.Background(), req(1500))
		if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorHTTP4xx || rec.ErrorCode != (probe.ErrorCode{Text: "400", Kind: probe.CodeNumber}) ||
			!strings.Contains(rec.Error, "exceeds the available context size") {
			t.Errorf("stream %v, oversized prompt: %s/%s code %q %q; want errored/http_4xx, code 400, the context message",
				stream, rec.Outcome, rec.ErrorType, rec.ErrorCode, rec.Error)
		}
	}
}
