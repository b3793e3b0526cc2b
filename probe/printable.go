package probe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable returns s with every rune the log would escape written as
// the log writes it: the log's text handler quotes such a value with
// strconv.Quote, and Printable writes the same escape for each rune
// strconv.IsPrint rejects (control characters \n, \t, \x1b; format
// characters such as the bidi overrides \u202e and \u2066 to \u2069, the
// zero-width \u200b to \u200f and \ufeff; other non-printing spaces) and
// \x.. for each byte of invalid UTF-8. Printable runes, backslashes and
// quotes stay as they are, so text without such runes is returned
// unchanged. Server-provided text shown on the status page and in the JSON
// API goes through it, so that it reads as in the log and cannot reorder
// or hide what is shown around it.
func Printable(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || !strconv.IsPrint(r) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			b.WriteString(strconv.FormatUint(uint64(s[i])&0xf, 16))
		case strconv.IsPrint(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRune(r) // '\u202e'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
