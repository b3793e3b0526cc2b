package probe

import (
	"encoding/json"
	"testing"
)

// TestStringTextAsDecoded checks stringText, whose strings without escapes
// are not decoded, against decoding each value: empty, plain, escaped,
// invalid UTF-8, control characters and malformed strings.
func TestStringTextAsDecoded(t *testing.T) {
	for _, in := range []string{`""`, `"a"`, `" "`, `"\u0000"`, `"\""`, `"\\"`, `"` + "\xff" + `"`, "\"\x01\"",
		`"a`, `"a"b"`, `"`, `"\u00"`, ` "x" `} {
		var s string
		err := json.Unmarshal([]byte(in), &s)
		got, gotErr := stringText([]byte(in))
		if (gotErr != nil) != (err != nil) || err == nil && got != (s != "") {
			t.Errorf("%q: got %v, %v; decoding gives %q, %v", in, got, gotErr, s, err)
		}
	}
}
