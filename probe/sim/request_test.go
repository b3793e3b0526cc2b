package sim

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name        string
		chat        bool
		body        string
		words       int
		prompt      string
		maxTokens   int // -1: none
		stream, use bool
		wantErr     bool
	}{
		{name: "chat string", chat: true, body: `{"messages":[{"role":"user","content":"a b"}]}`,
			words: 2, prompt: "a b", maxTokens: -1},
		{name: "chat last user message", chat: true,
			body:  `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b c"},{"role":"user","content":"d"}]}`,
			words: 4, prompt: "d", maxTokens: -1},
		{name: "chat null content", chat: true, body: `{"messages":[{"role":"assistant","content":null},{"role":"user","content":"x"}]}`,
			words: 1, prompt: "x", maxTokens: -1},
		{name: "chat both maxima", chat: true, body: `{"max_tokens":9,"max_completion_tokens":4,"messages":[{"role":"user","content":""}]}`,
			maxTokens: 4},
		{name: "stream options", chat: true, body: `{"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":""}]}`,
			maxTokens: -1, stream: true, use: true},
		{name: "prompt string", body: `{"prompt":"a  b\nc","max_tokens":0}`, words: 3, prompt: "a  b\nc", maxTokens: 0},
		{name: "prompt ids", body: `{"prompt":[5,6,7]}`, words: 3, maxTokens: -1},
		{name: "prompt null", body: `{"prompt":null}`, wantErr: true},
		{name: "prompt object", body: `{"prompt":{}}`, wantErr: true},
		{name: "not JSON", chat: true, body: `nope`, wantErr: true},
		{name: "trailing garbage", body: `{"prompt":"x"} {}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parse := parseCompletion
			if tt.chat {
				parse = parseChat
			}
			p, err := parse([]byte(tt.body))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			maxTokens := -1
			if p.maxTokens != nil {
				maxTokens = *p.maxTokens
			}
			if p.promptWords != tt.words || p.prompt != tt.prompt || maxTokens != tt.maxTokens ||
				p.stream != tt.stream || p.includeUsage != tt.use {
				t.Errorf("parsed %+v (max %d)", p, maxTokens)
			}
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		name, in string
		want     int // length in bytes
	}{
		{"short", "abc", 3},
		{"exactly 200", strings.Repeat("a", 200), 200},
		{"ascii", strings.Repeat("a", 300), 200},
		// "a" then 2-byte runes: byte 200 falls mid-rune, cut back to 199.
		{"multibyte", "a" + strings.Repeat("é", 150), 199},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clip(tt.in)
			if len(got) != tt.want || !utf8.ValidString(got) || !strings.HasPrefix(tt.in, got) {
				t.Errorf("clip() has %d bytes, want %d", len(got), tt.want)
			}
		})
	}
}

func FuzzParseChat(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"hello world"}],"max_tokens":3}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"é"}]}]}`))
	f.Add([]byte(`{"messages":[],"stream":true}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkParsed(t, parseChat, body)
	})
}

func FuzzParseCompletion(f *testing.F) {
	f.Add([]byte(`{"prompt":"hello world","max_tokens":3}`))
	f.Add([]byte(`{"prompt":[[1,2],[3]],"max_completion_tokens":1}`))
	f.Add([]byte(`{"prompt":["a","b"],"stream_options":{"include_usage":true}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkParsed(t, parseCompletion, body)
	})
}

func checkParsed(t *testing.T, parse func([]byte) (parsed, error), body []byte) {
	p, err := parse(body)
	if err != nil {
		return
	}
	if p.promptWords < 0 || (p.maxTokens != nil && *p.maxTokens < 0) ||
		len(p.prompt) > maxPromptLog || !utf8.ValidString(p.prompt) {
		t.Errorf("parse(%q) = %+v", body, p)
	}
}
