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
