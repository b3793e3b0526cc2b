package probe

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"unicode"
)

// ErrTimeout is the cause a backend gives to a request's context when its
// own request timeout fires, so that the failure it causes is recorded as
// ErrorTimeout rather than by the symptom (a closed connection, say).
var ErrTimeout = errors.New("request timeout")

// proberErrnos are the errors of a system call that say the prober, not
// the target, is out of a resource: file descriptors of the process or
// the system, memory, socket buffer space, local ports.
var proberErrnos = []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.ENOBUFS, syscall.EADDRNOTAVAIL}

// ProberFailure reports whether err, however wrapped, is the prober's own
// failure: a system call failed for want of a local resource (see
// ErrorProber). Backends record such a request as incomplete with
// ErrorProber, never as the target's error.
func ProberFailure(err error) bool {
	for _, errno := range proberErrnos {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// Failure is a request failure whose error type is already known: the
// server answered, but not well.
type Failure struct {
	// Type is the failure's error type.
	Type ErrorType
	// Msg is the failure's text, before Redactor.Bound.
	Msg string
	// Code is the error code the server gave with its error (an error
	// event's or error body's "code"), before Redactor.BoundCode; the zero
	// ErrorCode when it gave none.
	Code ErrorCode
}

// Error returns f.Msg.
func (f *Failure) Error() string { return f.Msg }

// Failf returns a *Failure of type typ with a formatted message.
func Failf(typ ErrorType, format string, args ...any) error {
	return &Failure{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

// MaxErrorChars bounds the length of Record.Error, in characters.
const MaxErrorChars = 200

// MaxErrorCodeChars bounds the length of Record.ErrorCode, in characters.
const MaxErrorCodeChars = 64

// Bounds of one response, whatever the server sends: a response with more
// events, or more bytes, is errored with ErrorProtocol. A record's memory
// does not grow with its response's events (Gaps, Instants), so these
// bound the work one response can cause, not its memory.
const (
	// MaxResponseEvents bounds the events of one response: SSE events of a
	// stream (heartbeats and ignored events included), server messages of a
	// realtime session. 4 × LimitTokens of the configuration, so a stream of
	// the longest allowed output fits with room for heartbeats.
	MaxResponseEvents = 1 << 22
	// MaxResponseBytes bounds the bytes of one streamed response (SSE body,
	// or the realtime session's server messages together): 1 GiB.
	MaxResponseBytes = 1 << 30
	// MaxResponseItems bounds the items of a JSON array of a response that
	// its reader keeps (the choices of a chunk or a whole response, a
	// delta's tool calls): about 150 bytes each kept, 150 KiB at most.
	MaxResponseItems = 1024
	// MaxResponseHeaderBytes bounds the status line and headers of a
	// response, in bytes (the transport's MaxResponseHeaderBytes).
	MaxResponseHeaderBytes = 64 << 10
)

// Redactor makes error text safe to record: a secret is found whatever
// the case of its ASCII letters (a server may echo a key upper-cased). The
// zero value redacts nothing.
type Redactor struct {
	// secrets are non-empty, longest first, so that a secret containing
	// another is replaced whole.
	secrets []string
}

// NewRedactor returns a Redactor of secrets; empty ones are ignored. Each
// secret is also redacted as a server or a library might echo it:
// URL-encoded (query and path escaping, and every byte percent-encoded),
// JSON-escaped (with and without the HTML escaping of <, > and &, and with
// / escaped or not), and base64-encoded
// (standard and URL alphabets, with or without padding) at each of the
// three alignments it can have inside a longer encoded text, such as the
// base64 of "user:<key>" in a Basic credential; of an encoded form only
// the characters that depend on the secret alone are matched, so that at
// most the 2 bits at either edge of a base64 form survive.
func NewRedactor(secrets []string) Redactor {
	var out []string
	for _, s := range secrets {
		if s != "" {
			out = append(out, secretForms(s)...)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return Redactor{secrets: slices.Compact(out)}
}

// minEncodedSecret is the shortest encoded form of a secret redacted: a
// shorter one could match text that has nothing to do with the secret.
const minEncodedSecret = 8

// secretForms returns s and its encoded forms (see NewRedactor).
func secretForms(s string) []string {
	forms := append([]string{s, url.QueryEscape(s), url.PathEscape(s), percentEncodeAll(s)}, jsonForms(s)...)
	for offset := range 3 {
		forms = append(forms, base64Forms(s, offset)...)
	}
	out := forms[:1]
	for _, f := range forms[1:] {
		if f != s && len(f) >= minEncodedSecret {
			out = append(out, f)
		}
	}
	return out
}

// jsonForms returns s as the inside of a JSON string in the escapings
// servers write: Go's (<, > and & as \u003c, \u003e, \u0026), without that
// HTML escaping (Go's Encoder.SetEscapeHTML(false), Python, JavaScript,
// and Go re-encoding a server's object), and each with / written \/ (PHP).
func jsonForms(s string) []string {
	var out []string
	if b, err := json.Marshal(s); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) == nil {
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		out = append(out, string(b[1:len(b)-1]))
	}
	for _, f := range slices.Clone(out) {
		out = append(out, strings.ReplaceAll(f, "/", `\/`))
	}
	return out
}

// percentEncodeAll returns s with every byte percent-encoded (%73%6B…),
// as a client may write any byte of a URL; the redactor ignores the case of
// the hex digits.
func percentEncodeAll(s string) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, 3*len(s))
	for i := range len(s) {
		b = append(b, '%', hex[s[i]>>4], hex[s[i]&15])
	}
	return string(b)
}

// base64Forms returns the characters of the base64 encodings of s, at
// offset bytes into the encoded text, that depend on s alone.
func base64Forms(s string, offset int) []string {
	buf := make([]byte, offset+len(s))
	copy(buf[offset:], s)
	enc := base64.RawStdEncoding.EncodeToString(buf)
	// Character i carries bits 6i to 6i+5: those of s are bits 8·offset
	// to 8·(offset+len(s)) − 1.
	from, to := (8*offset+5)/6, 8*(offset+len(s))/6
	if from >= to {
		return nil
	}
	std := enc[from:to]
	urlSafe := strings.NewReplacer("+", "-", "/", "_").Replace(std)
	return []string{std, urlSafe}
}

// Bound returns s with every secret replaced by "REDACTED", white space and
// control characters collapsed to single spaces, invalid UTF-8 replaced,
// and cut to MaxErrorChars characters. Secrets are replaced before
// cutting, so a cut can never leave part of one.
func (r Redactor) Bound(s string) string { return r.bound(s, MaxErrorChars) }

// BoundCode is Bound for an error code's text: cut to MaxErrorCodeChars
// characters. A number that had to be cut is no longer one: its kind
// becomes CodeOther (text).
func (r Redactor) BoundCode(c ErrorCode) ErrorCode {
	text := r.bound(c.Text, MaxErrorCodeChars)
	if c.Kind == CodeNumber && text != c.Text {
		c.Kind = CodeOther
	}
	c.Text = text
	return c
}

// bound redacts s, collapses its white space and cuts it to n characters.
func (r Redactor) bound(s string, n int) string {
	s = r.redact(strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.Join(strings.FieldsFunc(s, isSpaceOrControl), " ")
	if runes := []rune(s); len(runes) > n {
		s = string(runes[:n-1]) + "…"
	}
	return s
}

// redact replaces every secret in s by "REDACTED", whatever the case of
// its ASCII letters: a server may echo a key upper-cased.
func (r Redactor) redact(s string) string {
	for _, secret := range r.secrets {
		s = replaceFold(s, secret, "REDACTED")
	}
	return s
}

// replaceFold returns s with every occurrence of old replaced by repl,
// matching ASCII letters in either case; old is not empty.
func replaceFold(s, old, repl string) string {
	folded, target := foldASCII(s), foldASCII(old)
	var b strings.Builder
	last := 0
	for {
		i := strings.Index(folded[last:], target)
		if i < 0 {
			break
		}
		b.WriteString(s[last : last+i])
		b.WriteString(repl)
		last += i + len(target)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// foldASCII returns s with its ASCII capital letters in lower case, byte
// for byte, so that offsets in the result are offsets in s.
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Cut returns s, the start of a longer text that was cut after it (a
// response body read up to a size limit), with every secret redacted and
// the end replaced by "REDACTED" where it could be the start of a secret
// that the cut split: its last k bytes, for the largest k of at least
// minCutPrefix, equal a secret's (or an encoded form's) first k, whatever
// the case of their ASCII letters. Text that was cut must pass through Cut
// before anything else shortens or shows it, since Bound cannot recognize
// part of a secret.
func (r Redactor) Cut(s string) string {
	s = r.redact(s)
	folded, cut := foldASCII(s), 0
	for _, secret := range r.secrets {
		secret = foldASCII(secret)
		for k := min(len(secret)-1, len(s)); k > cut && k >= minCutPrefix; k-- {
			if strings.HasSuffix(folded, secret[:k]) {
				cut = k
				break
			}
		}
	}
	if cut == 0 {
		return s
	}
	return s[:len(s)-cut] + "REDACTED"
}

// minCutPrefix is the shortest start of a secret that Cut replaces: one
// or two characters tell nothing of a secret, and would make Cut replace
// the end of ordinary text that happens to begin one of its many forms.
const minCutPrefix = 3

// isSpaceOrControl reports whether r is white space or a control character.
func isSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }
