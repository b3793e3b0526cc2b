package probe

import (
	"strings"
	"testing"
)

func TestRedactorBound(t *testing.T) {
	r := NewRedactor([]string{"abc", "", "abcdef"})
	tests := []struct {
		name, in, want string
	}{
		{"secrets are replaced, the longer first", "key abcdef and abc", "key REDACTED and REDACTED"},
		{"white space and control characters collapse", "a\r\n\tb\x00\x1bc  d", "a b c d"},
		{"invalid UTF-8 is replaced", "a\xffb", "a\uFFFDb"},
		{"a secret at the cut is still redacted", strings.Repeat("x", 195) + "abcdef", strings.Repeat("x", 195) + "REDA…"},
		{"long text is cut to 200 characters", strings.Repeat("日", 250), strings.Repeat("日", 199) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Bound(tt.in); got != tt.want {
				t.Fatalf("bound = %q, want %q", got, tt.want)
			}
		})
	}
}

// plantedKey is the secret the redaction tests plant in server text.
const plantedKey = "sk-PLANTED-0123456789abcdef"

// leaks reports the longest start of plantedKey, of at least 3 bytes,
// found in s; "" when none is.
func leaks(s string) string {
	for k := len(plantedKey); k >= 3; k-- {
		if strings.Contains(s, plantedKey[:k]) {
			return plantedKey[:k]
		}
	}
	return ""
}

// TestRedactorCut plants the key at every offset around a cut: whatever
// part of it is left at the end of the cut text, none survives Cut and
// then Bound, with padding that Bound collapses (white space) or keeps.
func TestRedactorCut(t *testing.T) {
	r := NewRedactor([]string{plantedKey})
	const cut = 300
	for _, pad := range []string{" ", "x", "\n"} {
		for off := cut - len(plantedKey) - 2; off <= cut+2; off++ {
			text := strings.Repeat(pad, off) + plantedKey + strings.Repeat(pad, 10)
			got := r.Bound(r.Cut(text[:cut]))
			if l := leaks(got); l != "" {
				t.Errorf("pad %q, key at %d: %q leaks %q", pad, off, got, l)
			}
		}
	}
	if got := r.Cut("abc sk-PL"); got != "abc REDACTED" {
		t.Errorf("Cut = %q, want the partial key replaced", got)
	}
	if got := r.Cut("abc " + plantedKey); got != "abc REDACTED" {
		t.Errorf("Cut = %q, want the whole key replaced", got)
	}
	if got := r.Cut("abc xyz"); got != "abc xyz" {
		t.Errorf("Cut = %q, want it unchanged", got)
	}
}

// TestRedactorBoundAroundItsCut plants the key around Bound's own cut at
// MaxErrorChars characters and around the 64-character cut of codes.
func TestRedactorBoundAroundItsCut(t *testing.T) {
	r := NewRedactor([]string{plantedKey})
	for _, n := range []int{MaxErrorChars, MaxErrorCodeChars} {
		for off := n - len(plantedKey) - 2; off <= n+2; off++ {
			text := strings.Repeat("x", off) + plantedKey + " tail"
			for _, got := range []string{r.Bound(text), r.BoundCode(ErrorCode{Text: text, Kind: CodeString}).Text} {
				if l := leaks(got); l != "" {
					t.Errorf("key at %d: %q leaks %q", off, got, l)
				}
			}
		}
	}
}
