package sim

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestStreamShapes(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		path   string
		body   string
		object string
		want   []string
	}{
		{
			// No maximum: OutputTokens (default 16), finish "stop", no usage chunk.
			name: "chat default length", path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"messages":[{"role":"user","content":"hi there"}]}`,
			want: seq("role", rep{"content", 16}, "finish stop", "done"),
		},
		{
			// Prompt words: "be brief" 2 + "one two three" 3 = 5; 5 + 4 = 9 total.
			name: "chat max_tokens with usage", path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"stream_options":{"include_usage":true},"max_tokens":4,` +
				`"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"one two three"}]}`,
			want: seq("role", rep{"content", 4}, "finish length", "usage 5/4/9", "done"),
		},
		{
			// Both set: the smaller (7) wins.
			name: "max_completion_tokens smaller", path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"max_completion_tokens":7,"max_tokens":9,"messages":[{"role":"user","content":"x"}]}`,
			want: seq("role", rep{"content", 7}, "finish length", "done"),
		},
		{
			name: "max_tokens smaller", path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"max_completion_tokens":9,"max_tokens":3,"messages":[{"role":"user","content":"x"}]}`,
			want: seq("role", rep{"content", 3}, "finish length", "done"),
		},
		{
			// 10000 asked, capped at MaxOutputTokens 12.
			name: "capped", cfg: Config{MaxOutputTokens: 12}, path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"max_tokens":10000,"messages":[{"role":"user","content":"x"}]}`,
			want: seq("role", rep{"content", 12}, "finish length", "done"),
		},
		{
			name: "zero tokens", path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"max_tokens":0,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}`,
			want: seq("role", "finish length", "usage 1/0/1", "done"),
		},
		{
			// 3 reasoning tokens of 5, then 2 visible ones.
			name: "reasoning first", cfg: Config{ReasoningTokens: 3}, path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"max_tokens":5,"messages":[{"role":"user","content":"x"}]}`,
			want: seq("role", rep{"reasoning", 3}, rep{"content", 2}, "finish length", "done"),
		},
		{
			// More reasoning tokens than output: all 2 are reasoning.
			name: "reasoning longer than output", cfg: Config{ReasoningTokens: 8}, path: "/v1/chat/completions", object: "chat.completion.chunk",
			body: `{"stream":true,"max_tokens":2,"messages":[{"role":"user","content":"x"}]}`,
			want: seq("role", rep{"reasoning", 2}, "finish length", "done"),
		},
		{
			// Completions: no role chunk, text deltas; OutputTokens 6 from the config.
			name: "completions default length", cfg: Config{OutputTokens: 6, ReasoningTokens: 3}, path: "/v1/completions", object: "text_completion",
			body: `{"stream":true,"stream_options":{"include_usage":true},"prompt":"four words of prompt"}`,
			want: seq(rep{"text", 6}, "finish stop", "usage 4/6/10", "done"),
		},
		{
			// Prompt of token ids counts ids: 3 + 2 = 5.
			name: "completions token prompt", path: "/v1/completions", object: "text_completion",
			body: `{"stream":true,"stream_options":{"include_usage":true},"max_tokens":2,"prompt":[[1,2,3],[4,5]]}`,
			want: seq(rep{"text", 2}, "finish length", "usage 5/2/7", "done"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := start(t, tt.cfg)
			resp := post(context.Background(), t, c, s.URL()+tt.path, tt.body, "")
			defer closeBody(resp)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d content type %q, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			got := readSSE(resp.Body, nil)
			if got.err != nil {
				t.Fatalf("read stream: %v", got.err)
			}
			if kinds := shape(t, got.data, tt.object, DefaultModel); !slices.Equal(kinds, tt.want) {
				t.Errorf("stream shape\n got %v\nwant %v", kinds, tt.want)
			}
		})
	}
}

func TestStreamEchoesModelAndLogs(t *testing.T) {
	s, c := start(t, Config{Model: "served"})
	long := strings.Repeat("é", 150) // 300 bytes; the log keeps 200 (100 characters)
	body := `{"model":"asked","stream":true,"max_tokens":2,"messages":[{"role":"user","content":"first"},` +
		`{"role":"assistant","content":"reply"},{"role":"user","content":"` + long + `"}]}`
	resp := post(context.Background(), t, c, s.URL()+"/v1/chat/completions", body, "")
	got := readSSE(resp.Body, nil)
	closeBody(resp)
	// role, 2 content, finish, done.
	if kinds := shape(t, got.data, "chat.completion.chunk", "asked"); len(kinds) != 5 {
		t.Fatalf("shape %v, want 5 events", kinds)
	}
	l := logOf(t, s, 1)[0]
	// 5 events written, 2 of them tokens; prompt words 1 + 1 + 1 = 3.
	if l.API != APIChat || !l.Stream || l.Prompt != strings.Repeat("é", 100) || len(l.ChunkSent) != 5 ||
		len(l.TokenSent) != 2 || l.OutputTokens != 2 || l.PromptTokens != 3 || l.Status != 200 || l.Canceled || l.Fault != "" {
		t.Errorf("log %+v", l)
	}
	if !strings.HasPrefix(l.ID, "chatcmpl-sim-") {
		t.Errorf("id %q, want prefix chatcmpl-sim-", l.ID)
	}
}
