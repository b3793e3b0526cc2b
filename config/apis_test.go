package config

import (
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe/api"
)

// TestAPIsFromTheList checks that validation follows the one list of API
// kinds: each kind validates with its backend and defaults to it, the
// unknown-API message lists the HTTP backend's kinds, and a kind that
// always streams refuses stream false.
func TestAPIsFromTheList(t *testing.T) {
	for _, k := range api.Kinds() {
		tg := Target{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Backend: k.Backend, API: k.Name}
		if k.Backend == api.WebSocket {
			tg.API = "" // set by the backend's default
		}
		c := &Config{Targets: []Target{tg}}
		c.ApplyDefaults()
		if err := c.Validate(); err != nil || c.Targets[0].API != k.Name {
			t.Errorf("kind %s: api %q, %v", k.Name, c.Targets[0].API, err)
		}
	}
	no := false
	c := &Config{Targets: []Target{
		{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m", API: "embeddings"},
		{Name: "b", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Backend: api.WebSocket, Stream: &no},
	}}
	c.ApplyDefaults()
	err := c.Validate()
	for _, want := range []string{`targets[0].api: unknown api "embeddings" (supported: chat, completions)`,
		"targets[1].stream: backend openai_websocket always streams"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want %s", err, want)
		}
	}
}
