package probe

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", `model "x" \ ok`, `model "x" \ ok`},
		{"accents and CJK", "café 模型", "café 模型"},
		{"right-to-left override", "file\u202eexe.txt", `file\u202eexe.txt`},
		{"isolates", "a\u2066b\u2067c\u2068d\u2069", `a\u2066b\u2067c\u2068d\u2069`},
		{"embeddings and marks", "\u202a\u202b\u202c\u202d\u200e\u200f\u061c", `\u202a\u202b\u202c\u202d\u200e\u200f\u061c`},
		{"zero width", "in\u200bvis\u200cib\u200dle\ufeff", `in\u200bvis\u200cib\u200dle\ufeff`},
		{"controls", "a\nb\tc\x1b[31md\x7f", `a\nb\tc\x1b[31md\x7f`},
		{"C1 control", "\u0085x", `\u0085x`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"no-break space", "a\u00a0b", `a\u00a0b`},
		{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`},
		{"tag characters", "\U000e0041", `\U000e0041`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("%s: Printable(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// FuzzPrintable: for text without '"' or '\' (which strconv.Quote escapes
// too), Printable writes what strconv.Quote, the log's quoting, writes
// between its quotes; its result never holds a rune the log would escape.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "a\u202eb", "\xff", "x\ny", `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Printable(s)
		q := strconv.Quote(s)
		if want := q[1 : len(q)-1]; !strings.ContainsAny(s, `"\`) && got != want {
			t.Errorf("Printable(%q) = %q, want %q", s, got, want)
		}
		for _, r := range got {
			if !strconv.IsPrint(r) {
				t.Errorf("Printable(%q) = %q keeps %U", s, got, r)
			}
		}
	})
}

// TestPrintableAsTheLog: the log line of a server's error holds exactly
// Printable's text.
func TestPrintableAsTheLog(t *testing.T) {
	in := "bad\u202egpj.exe\u200b\x01"
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})).Info("request failed", "error", in)
	if want := `level=INFO msg="request failed" error="` + Printable(in) + "\"\n"; b.String() != want {
		t.Errorf("log %q, want %q", b.String(), want)
	}
}
