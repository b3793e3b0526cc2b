package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// captured is what a server saw of one request.
type captured struct {
	method, path, host string
	header             http.Header
	body               map[string]any
}

// capture starts a server that records each request and answers with
// status and body.
func capture(t *testing.T, status int, ctype, body string) (string, *http.Client, func() captured) {
	t.Helper()
	var mu sync.Mutex
	var got captured
	url, client := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Errorf("request body %q is not JSON: %v", raw, err)
		}
		mu.Lock()
		got = captured{method: r.Method, path: r.URL.Path, host: r.Host, header: r.Header.Clone(), body: m}
		mu.Unlock()
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}))
	return url, client, func() captured {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func TestRequestBody(t *testing.T) {
	msgs := []probe.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "a <b> & c"}}
	tests := []struct {
		name   string
		edit   func(*Config)
		max    int
		path   string
		accept string
		want   string // the expected body as JSON
	}{
		{
			name: "chat stream with both max tokens fields and ignore_eos",
			edit: func(c *Config) { c.IgnoreEOS = true },
			max:  64, path: "/v1/chat/completions", accept: "text/event-stream",
			want: `{"model":"m","stream":true,"stream_options":{"include_usage":true},
				"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"a <b> & c"}],
				"max_tokens":64,"max_completion_tokens":64,"ignore_eos":true}`,
		},
		{
			name: "chat without a stream sends no stream_options",
			edit: func(c *Config) { c.Stream = false; c.MaxTokensFields = []string{"max_completion_tokens"} },
			max:  8, path: "/v1/chat/completions", accept: "application/json",
			want: `{"model":"m","stream":false,
				"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"a <b> & c"}],
				"max_completion_tokens":8}`,
		},
		{
			name: "completions join the contents into the prompt; default field max_tokens",
			edit: func(c *Config) { c.API = "completions" },
			max:  32, path: "/v1/completions", accept: "text/event-stream",
			want: `{"model":"m","stream":true,"stream_options":{"include_usage":true},
				"prompt":"be brief\na <b> & c","max_tokens":32}`,
		},
		{
			name: "no output limit and no model",
			edit: func(c *Config) { c.Model = ""; c.BaseURL += "/" },
			max:  0, path: "/v1/chat/completions", accept: "text/event-stream",
			want: `{"stream":true,"stream_options":{"include_usage":true},
				"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"a <b> & c"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, client, got := capture(t, 500, "application/json", `{}`)
			b := newBackend(t, url, client, tt.edit)
			b.Do(context.Background(), &probe.Request{Messages: msgs, MaxOutputTokens: tt.max})
			c := got()
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.body, want) {
				t.Errorf("body = %v\nwant   %v", c.body, want)
			}
			if c.method != http.MethodPost || c.path != tt.path {
				t.Errorf("request = %s %s, want POST %s", c.method, c.path, tt.path)
			}
			if ct, acc := c.header.Get("Content-Type"), c.header.Get("Accept"); ct != "application/json" || acc != tt.accept {
				t.Errorf("Content-Type = %q, Accept = %q; want application/json, %q", ct, acc, tt.accept)
			}
		})
	}
}

func TestHeadersAndRedaction(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	url, client, got := capture(t, 401, "application/json",
		`{"error":{"message":"Incorrect API key provided: Bearer `+key+`. You can find your key at ...","type":"invalid_request_error"}}`)
	header := http.Header{}
	header.Set("User-Agent", "llmprober/1.2.3")
	header.Set("X-LLMProber-Tag", "synthetic")
	header.Set("Authorization", "Bearer "+key)
	b := newBackend(t, url, client, func(c *Config) {
		c.Header = header
		c.Secrets = []string{key}
	})
	rec := b.Do(context.Background(), request())
	c := got()
	for name, want := range map[string]string{
		"User-Agent": "llmprober/1.2.3", "X-Llmprober-Tag": "synthetic", "Authorization": "Bearer " + key,
	} {
		if v := c.header.Get(name); v != want {
			t.Errorf("header %s = %q, want %q", name, v, want)
		}
	}
	want := "HTTP 401: Incorrect API key provided: Bearer REDACTED. You can find your key at ..."
	if rec.ErrorType != probe.ErrorHTTP4xx || rec.Error != want {
		t.Fatalf("error = %s %q, want http_4xx %q", rec.ErrorType, rec.Error, want)
	}
	if header.Get("Content-Type") != "" {
		t.Error("the caller's header was changed")
	}
}

func TestHostHeader(t *testing.T) {
	url, client, got := capture(t, 500, "application/json", `{}`)
	b := newBackend(t, url, client, func(c *Config) { c.Header = http.Header{"Host": {"llm.internal"}} })
	b.Do(context.Background(), request())
	if h := got().host; h != "llm.internal" {
		t.Errorf("host = %q, want llm.internal", h)
	}
}
