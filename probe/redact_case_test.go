package probe

import (
	"strings"
	"testing"
)

// TestRedactorIgnoresCase: a server that echoes a key upper-cased, lower-
// cased or in mixed case has it redacted by Bound, and by Cut when the cut
// splits it; text around it keeps its case.
func TestRedactorIgnoresCase(t *testing.T) {
	r := NewRedactor([]string{plantedKey})
	for _, echo := range []string{plantedKey, strings.ToUpper(plantedKey), strings.ToLower(plantedKey), "Sk-Planted-0123456789ABCDEF"} {
		if got, want := r.Bound("Denied "+echo+" Twice "+echo), "Denied REDACTED Twice REDACTED"; got != want {
			t.Errorf("Bound(%q) = %q, want %q", echo, got, want)
		}
		if got, want := r.Cut("Denied "+echo[:10]), "Denied REDACTED"; got != want {
			t.Errorf("Cut(%q) = %q, want %q", echo[:10], got, want)
		}
	}
	if got := r.Bound("SK-PLANTED-0123456789ABCDEX"); got != "SK-PLANTED-0123456789ABCDEX" {
		t.Errorf("a different key was redacted: %q", got)
	}
}

// TestReplaceFold checks the case-folding replacement by hand-written
// cases: offsets stay right around multi-byte characters, matches do not
// overlap, and non-ASCII letters are compared as they are.
func TestReplaceFold(t *testing.T) {
	for _, tc := range []struct{ s, old, want string }{
		{"aXbxc", "x", "a_b_c"},
		{"日本KEY語key", "Key", "日本_語_"},
		{"aaaa", "AA", "__"},
		{"ÉCOLE école", "école", "ÉCOLE _"},
		{"none", "zz", "none"},
		{"\xffKEY\xff", "key", "\xff_\xff"},
	} {
		if got := replaceFold(tc.s, tc.old, "_"); got != tc.want {
			t.Errorf("replaceFold(%q, %q) = %q, want %q", tc.s, tc.old, got, tc.want)
		}
	}
}
