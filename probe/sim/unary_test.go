package sim

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

type testAnswer struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Role             string  `json:"role"`
			Content          string  `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"message"`
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

func TestNonStreaming(t *testing.T) {
	tests := []struct {
		name                     string
		cfg                      Config
		path, body               string
		object                   string
		contentWords, reasonWord int // -1: no reasoning_content field
		finish                   string
		prompt, completion       int
	}{
		{
			// 5 tokens, all visible; prompt "a b c" 3 words.
			name: "chat", path: "/v1/chat/completions", object: "chat.completion",
			body:         `{"max_tokens":5,"messages":[{"role":"user","content":"a b c"}]}`,
			contentWords: 5, reasonWord: -1, finish: "length", prompt: 3, completion: 5,
		},
		{
			// 6 tokens: 2 reasoning, 4 visible; content parts "a b" + "c" = 3 words.
			name: "chat with reasoning", cfg: Config{ReasoningTokens: 2, OutputTokens: 6},
			path: "/v1/chat/completions", object: "chat.completion",
			body:         `{"messages":[{"role":"user","content":[{"type":"text","text":"a b"},{"type":"image_url"},{"type":"text","text":"c"}]}]}`,
			contentWords: 4, reasonWord: 2, finish: "stop", prompt: 3, completion: 6,
		},
		{
			// Default 16 tokens; prompt strings joined: 2 + 1 = 3 words.
			name: "completions", path: "/v1/completions", object: "text_completion",
			body:         `{"prompt":["a b","c"]}`,
			contentWords: 16, reasonWord: -1, finish: "stop", prompt: 3, completion: 16,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := start(t, tt.cfg)
			resp := post(context.Background(), t, c, s.URL()+tt.path, tt.body, "")
			defer closeBody(resp)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var a testAnswer
			if err := json.Unmarshal(readAll(t, resp.Body), &a); err != nil {
				t.Fatalf("decode: %v", err)
			}
			if a.Object != tt.object || a.Model != DefaultModel || len(a.Choices) != 1 {
				t.Fatalf("answer %+v", a)
			}
			ch := a.Choices[0]
			text := ch.Text
			if tt.object == "chat.completion" {
				text = ch.Message.Content
				if ch.Message.Role != "assistant" {
					t.Errorf("role %q, want assistant", ch.Message.Role)
				}
			}
			if got := len(strings.Fields(text)); got != tt.contentWords {
				t.Errorf("content %q has %d words, want %d", text, got, tt.contentWords)
			}
			r := ch.Message.ReasoningContent
			if (r == nil) != (tt.reasonWord < 0) || (r != nil && len(strings.Fields(*r)) != tt.reasonWord) {
				t.Errorf("reasoning_content %v, want %d words", r, tt.reasonWord)
			}
			u := a.Usage
			if ch.FinishReason != tt.finish || u.PromptTokens != tt.prompt || u.CompletionTokens != tt.completion ||
				u.TotalTokens != tt.prompt+tt.completion {
				t.Errorf("finish %q usage %+v, want %q %d/%d", ch.FinishReason, u, tt.finish, tt.prompt, tt.completion)
			}
			l := logOf(t, s, 1)[0]
			if l.Stream || len(l.ChunkSent) != 1 || len(l.TokenSent) != 0 || l.ID != a.ID {
				t.Errorf("log %+v, want one chunk, no tokens, id %q", l, a.ID)
			}
		})
	}
}
