package openai

import "testing"

func TestBodyMessage(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"error object", `{"error":{"message":"bad","type":"x","code":400}}`, "bad"},
		{"error string", `{"error":"bad"}`, "bad"},
		{"error object without message", `{"error":{"code":42}}`, `{"code":42}`},
		{"null error falls back to message", `{"error":null,"message":"fallback"}`, "fallback"},
		{"top-level message", `{"object":"error","message":"m"}`, "m"},
		{"detail", `{"detail":"Not Found"}`, "Not Found"},
		{"detail list", `{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`},
		{"JSON without a message", `{"ok":true}`, `{"ok":true}`},
		{"text", "  upstream connect error\n", "upstream connect error"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bodyMessage([]byte(tt.body)); got != tt.want {
				t.Fatalf("bodyMessage = %q, want %q", got, tt.want)
			}
		})
	}
}
