package probe

import (
	"bytes"
	"encoding/json"
	"strings"
)

// ErrorCode is the code a server gave with its error (the "code" of an
// error event or body), keeping its JSON type, so that 400 and "400" stay
// apart. The zero value is no code.
type ErrorCode struct {
	// Text is the code: a number as written (400, 1.5e3), a string's
	// text, or any other value's compact JSON text (true, {"x":1}).
	Text string
	// Kind is the code's JSON type.
	Kind CodeKind
}

// CodeKind is the JSON type of an ErrorCode.
type CodeKind uint8

// The kinds of ErrorCode.
const (
	// CodeNone: no code (absent, null or "").
	CodeNone CodeKind = iota
	// CodeNumber: a JSON number, Text as written.
	CodeNumber
	// CodeString: a JSON string, Text its text.
	CodeString
	// CodeOther: any other JSON value (true, an array, an object), Text its
	// compact JSON text, or a number that was cut to its bound.
	CodeOther
)

// ErrorCodeOf returns the error code a "code" member holds: no code when
// it is absent, null or "", else the value with its JSON type. Another
// value's JSON is re-encoded compactly with its strings unescaped, so that
// a secret inside one is written as it is and can be redacted.
func ErrorCodeOf(raw json.RawMessage) ErrorCode {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) || !json.Valid(raw) {
		return ErrorCode{}
	}
	var s string
	switch {
	case json.Unmarshal(raw, &s) == nil && s == "":
		return ErrorCode{}
	case raw[0] == '"':
		return ErrorCode{Text: s, Kind: CodeString}
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return ErrorCode{Text: string(raw), Kind: CodeNumber}
	}
	return ErrorCode{Text: compactJSON(raw), Kind: CodeOther}
}

// maxCompactBytes bounds the JSON text compactJSON re-encodes, in bytes:
// an error body's bound (64 KiB).
const maxCompactBytes = 64 << 10

// compactJSON returns raw, when it is one JSON value of at most
// maxCompactBytes, re-encoded compactly, its strings without escapes
// beyond those JSON needs (no \u0074 for "t", no HTML escapes), numbers as
// written; anything else as it is. A longer value is not re-encoded:
// decoding it into Go values would keep about 20 bytes for every 2 of an
// array of numbers, and its text is cut to MaxErrorChars anyway.
func compactJSON(raw []byte) string {
	if len(raw) > maxCompactBytes || !json.Valid(raw) {
		return string(raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// String returns the code as the landing page and the log show it: a
// number as written (400), a string in JSON quotes ("400"), another value
// as its JSON text; "" for no code.
func (c ErrorCode) String() string {
	if c.Kind == CodeString {
		return quoteJSON(c.Text)
	}
	return c.Text
}

// MarshalJSON writes the code as the JSON API shows it: a number as a
// JSON number, a string as a JSON string, another value as a string of
// its JSON text, and no code as null.
func (c ErrorCode) MarshalJSON() ([]byte, error) {
	switch c.Kind {
	case CodeNone:
		return []byte("null"), nil
	case CodeNumber:
		if json.Valid([]byte(c.Text)) {
			return []byte(c.Text), nil
		}
	}
	return []byte(quoteJSON(c.Text)), nil
}

// quoteJSON returns s as a JSON string, without HTML escapes.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
