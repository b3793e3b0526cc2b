package openai

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestNewRejects(t *testing.T) {
	client := &http.Client{}
	tests := []struct {
		name string
		cfg  Config
		want string // part of the error
	}{
		{"no client", Config{BaseURL: "http://h/v1"}, "HTTP client is required"},
		{"relative base URL", Config{BaseURL: "/v1", Client: client}, "not an absolute http or https URL"},
		{"other scheme", Config{BaseURL: "ftp://h/v1", Client: client}, "not an absolute http or https URL"},
		{"unparsable base URL", Config{BaseURL: "http://h/%zz", Client: client}, "could not parse base URL"},
		{"unknown API", Config{BaseURL: "http://h/v1", API: "responses", Client: client}, `unknown API "responses"`},
		{"unknown max tokens field", Config{BaseURL: "http://h/v1", MaxTokensFields: []string{"max_new_tokens"}, Client: client}, `unknown max tokens field "max_new_tokens"`},
		{"negative timeout", Config{BaseURL: "http://h/v1", Timeout: -time.Second, Client: client}, "must not be negative"},
		{"negative body limit", Config{BaseURL: "http://h/v1", MaxBodyBytes: -1, Client: client}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestNewDefaults(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		url    string
		api    string
		fields []string
	}{
		{"chat by default, both fields", Config{BaseURL: "http://h:8000/v1/"}, "http://h:8000/v1/chat/completions", "chat", []string{"max_tokens", "max_completion_tokens"}},
		{"completions, max_tokens", Config{BaseURL: "https://h/v1", API: "completions"}, "https://h/v1/completions", "completions", []string{"max_tokens"}},
		{"fields as given", Config{BaseURL: "http://h/v1", MaxTokensFields: []string{"max_completion_tokens"}}, "http://h/v1/chat/completions", "chat", []string{"max_completion_tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Client = &http.Client{}
			b, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if b.url != tt.url || b.cfg.API != tt.api || !reflect.DeepEqual(b.cfg.MaxTokensFields, tt.fields) {
				t.Errorf("url %q api %q fields %v; want %q %q %v", b.url, b.cfg.API, b.cfg.MaxTokensFields, tt.url, tt.api, tt.fields)
			}
			if b.cfg.Clock == nil || b.cfg.MaxEventBytes != 1<<20 || b.cfg.MaxBodyBytes != 16<<20 {
				t.Errorf("clock %v, event limit %d, body limit %d; want the real clock, 1 MiB, 16 MiB",
					b.cfg.Clock, b.cfg.MaxEventBytes, b.cfg.MaxBodyBytes)
			}
		})
	}
}
