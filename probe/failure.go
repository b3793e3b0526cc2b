package probe

import (
	"errors"
	"fmt"
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
}

// Error returns f.Msg.
func (f *Failure) Error() string { return f.Msg }

// Failf returns a *Failure of type typ with a formatted message.
func Failf(typ ErrorType, format string, args ...any) error {
	return &Failure{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

// MaxErrorChars bounds the length of Record.Error, in characters.
const MaxErrorChars = 200

// Redactor makes error text safe to record. The zero value redacts nothing.
type Redactor struct {
	// secrets are non-empty, longest first, so that a secret containing
	// another is replaced whole.
	secrets []string
}

// NewRedactor returns a Redactor of secrets; empty ones are ignored.
func NewRedactor(secrets []string) Redactor {
	out := slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return s == "" })
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return Redactor{secrets: out}
}

// Bound returns s with every secret replaced by "REDACTED", white space and
// control characters collapsed to single spaces, invalid UTF-8 replaced,
// and cut to MaxErrorChars characters. Secrets are replaced before
// cutting, so a cut can never leave part of one.
func (r Redactor) Bound(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, "REDACTED")
	}
	s = strings.Join(strings.FieldsFunc(s, isSpaceOrControl), " ")
	if runes := []rune(s); len(runes) > MaxErrorChars {
		s = string(runes[:MaxErrorChars-1]) + "…"
	}
	return s
}

// isSpaceOrControl reports whether r is white space or a control character.
func isSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }
