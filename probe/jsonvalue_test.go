package probe

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestTruthyCompositesAsDecoded holds Truthy of arrays and objects, which
// looks at their text, to decoding them: set when not valid JSON or not
// empty.
func TestTruthyCompositesAsDecoded(t *testing.T) {
	for _, in := range []string{"[]", "[ \t\r\n]", "{}", "{\n}", " [ ] ", "[", "{", "[1", "[0]", "[[]]", "[{}]", "{ ]", "[ }",
		"{}x", "[]]", "[\xc2\xa0]", "{\v}", "[\f]", `{"a":1}`, `{"":null}`, "{,}", "[,]"} {
		raw := bytes.TrimSpace([]byte(in))
		var want bool
		if raw[0] == '[' {
			var a []json.RawMessage
			want = json.Unmarshal(raw, &a) != nil || len(a) > 0
		} else {
			var m map[string]json.RawMessage
			want = json.Unmarshal(raw, &m) != nil || len(m) > 0
		}
		if got := Truthy([]byte(in)); got != want {
			t.Errorf("Truthy(%q) = %v, want %v", in, got, want)
		}
	}
}
