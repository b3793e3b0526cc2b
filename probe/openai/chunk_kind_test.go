package openai

import (
	"encoding/json"
	"testing"
)

// TestIsErrorKindAsDecoded checks isErrorKind, which compares strings
// without escapes as they stand, against decoding each member.
func TestIsErrorKindAsDecoded(t *testing.T) {
	for _, in := range []string{`"error"`, `"Error"`, `"error "`, `"\u0065rror"`, `"err\u006fr"`, `"chat.completion.chunk"`,
		`null`, `5`, `true`, `{"error":1}`, `["error"]`, `""`, ` "error" `} {
		var s string
		want := json.Unmarshal([]byte(in), &s) == nil && s == "error"
		if got := isErrorKind([]byte(in)); got != want {
			t.Errorf("%s: got %v, want %v", in, got, want)
		}
	}
}
