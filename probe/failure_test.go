package probe

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
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

func TestProberFailure(t *testing.T) {
	dial := func(errno error) error {
		return fmt.Errorf("Post \"http://h/v1\": %w", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)})
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"too many open files in the process", dial(syscall.EMFILE), true},
		{"too many open files in the system", dial(syscall.ENFILE), true},
		{"no buffer space", dial(syscall.ENOBUFS), true},
		{"out of memory", dial(syscall.ENOMEM), true},
		{"no local port", dial(syscall.EADDRNOTAVAIL), true},
		{"refused is the target's", dial(syscall.ECONNREFUSED), false},
		{"reset is the target's", dial(syscall.ECONNRESET), false},
		{"plain error", errors.New("too many open files"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ProberFailure(tt.err); got != tt.want {
				t.Errorf("ProberFailure(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestFailed(t *testing.T) {
	for _, tt := range []struct {
		o    Outcome
		e    ErrorType
		want bool
	}{
		{Successful, ErrorNone, false},
		{Errored, ErrorHTTP5xx, true},
		{Incomplete, ErrorCanceled, false},
		{Incomplete, ErrorProber, true},
	} {
		if got := Failed(tt.o, tt.e); got != tt.want {
			t.Errorf("Failed(%s, %s) = %v, want %v", tt.o, tt.e, got, tt.want)
		}
	}
}

// A secret is redacted in each encoding a server may echo it in; inside a
// base64 text at any alignment, exactly the characters that depend on the
// secret alone are replaced.
func TestRedactorEncodings(t *testing.T) {
	const key = `sk-Planted/Key+0123"<&>=x`
	r := NewRedactor([]string{key})
	for name, in := range map[string]string{
		"raw":           "key " + key + " end",
		"query escaped": "u=" + url.QueryEscape(key) + "&x",
		"path escaped":  "/p/" + url.PathEscape(key) + "/q",
		"JSON escaped":  `{"e":` + string(must(json.Marshal(key))) + `}`,
	} {
		if got := r.Bound(in); !strings.Contains(got, "REDACTED") || strings.Contains(got, "Planted") {
			t.Errorf("%s: %q → %q", name, in, got)
		}
	}
	// Every byte percent-encoded, with upper- or lower-case hex digits.
	var all strings.Builder
	for i := range len(key) {
		fmt.Fprintf(&all, "%%%02X", key[i])
	}
	for _, enc := range []string{all.String(), strings.ToLower(all.String())} {
		if got := r.Bound("p=" + enc + "&x"); got != "p=REDACTED&x" {
			t.Errorf("every byte percent-encoded: %q → %q, want p=REDACTED&x", enc, got)
		}
	}
	for prefix := range 6 {
		for suffix := range 4 {
			plain := strings.Repeat("u", prefix) + key + strings.Repeat("v", suffix)
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
				e := enc.EncodeToString([]byte(plain))
				from, to := (8*prefix+5)/6, 8*(prefix+len(key))/6
				want := "Basic " + e[:from] + "REDACTED" + e[to:]
				if got := r.Bound("Basic " + e); got != want {
					t.Errorf("base64 at %d+%d: %q → %q, want %q", prefix, suffix, e, got, want)
				}
			}
		}
	}
}

// A short secret is redacted raw, but not by its short encoded forms.
func TestRedactorShortSecret(t *testing.T) {
	r := NewRedactor([]string{"abc"})
	if got := r.Bound("abc YWJj"); got != "REDACTED YWJj" {
		t.Errorf("got %q", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
