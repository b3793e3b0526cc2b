package config

import (
	"strings"
	"testing"
)

// /config's YAML: defaults shown, durations as Go durations, credential
// header values and URL passwords redacted, key variable names shown.
func TestRunningRedacts(t *testing.T) {
	c := &Config{Targets: []Target{{
		Name: "a", BaseURL: "http://user:hunter2@127.0.0.1:8000/v1", Model: "m",
		Headers: map[string]string{"X-Api-Key": "sk-planted", "X-Team": "search"},
		Auth:    Auth{APIKeyEnv: "VLLM_KEY"},
	}}}
	c.ApplyDefaults()
	out, err := Running(c)
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, secret := range []string{"sk-planted", "hunter2"} {
		if strings.Contains(text, secret) {
			t.Errorf("/config shows %q:\n%s", secret, text)
		}
	}
	for _, want := range []string{"X-Api-Key: <secret>", "X-Team: search", "api_key_env: VLLM_KEY", "timeout: " + c.Targets[0].Timeout.String(),
		"listen_address: 127.0.0.1:9477", "name: a"} {
		if !strings.Contains(text, want) {
			t.Errorf("/config lacks %q:\n%s", want, text)
		}
	}
}
