// Package jsonwalk reads the few members the prober needs of a server's
// JSON message by walking its tokens with the jsontext decoder of
// github.com/go-json-experiment/json, which validates the text as it goes
// and reads it in place, without allocating; the rest is skipped. A walk
// keeps nothing of a message but the decoder's state, whose stack of
// open arrays and objects stops at jsontext's depth limit (10000): a
// deeper message fails the walk, whatever its length.
//
// A walk keeps encoding/json's syntax (duplicate names and invalid UTF-8
// are allowed, one value per message) and the way encoding/json decodes
// into a struct (member names match without regard to ASCII case). What a
// walk cannot be sure to read as encoding/json would, a caller's read
// function reports by returning false, and so does every method here: a
// name with an escape or a byte past ASCII (which encoding/json may decode
// or fold to a member's name), a member read that comes twice (which
// encoding/json would merge), a value of a type the reader does not take,
// and JSON that is not valid. The caller then decodes the message with
// encoding/json, whose result and error stand.
package jsonwalk

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Walker walks one message at a time. The zero value is ready for Reset;
// a Walker is not safe for concurrent use.
type Walker struct {
	d    jsontext.Decoder
	buf  bytes.Buffer // the message, which the decoder reads in place
	data []byte
}

// The syntax options of encoding/json.
var (
	allowDuplicates = jsontext.AllowDuplicateNames(true)
	allowBadUTF8    = jsontext.AllowInvalidUTF8(true)
)

// Reset makes w read data from its start; Reset(nil) drops the reference
// to the last message.
func (w *Walker) Reset(data []byte) {
	w.data = data
	w.buf = *bytes.NewBuffer(data)
	w.d.Reset(&w.buf, allowDuplicates, allowBadUTF8)
}

// Kind returns the kind of the next value ('n', 'f', 't', '"', '0', '{',
// '[', or '}' and ']' at the end of an object or array), or 0 at the end
// of the message and at a syntax error.
func (w *Walker) Kind() jsontext.Kind { return w.d.PeekKind() }

// End reports whether nothing but white space follows the value read.
func (w *Walker) End() bool {
	_, err := w.d.ReadToken()
	return errors.Is(err, io.EOF)
}

// Object reads the object that comes next, calling read(i) for its member
// named names[i] (at most 64 names; read reads the value) and skipping
// the others. It reports false at the first name it cannot match for
// sure (see Member), at a member of names that comes twice, when read
// does, and at any syntax error.
func (w *Walker) Object(names []string, read func(i int) bool) bool {
	if tok, err := w.d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	var seen uint64
	for w.d.PeekKind() != '}' {
		name, err := w.d.ReadValue()
		if err != nil {
			return false
		}
		i, ok := Member(name, names)
		switch {
		case !ok || i >= 0 && seen&(1<<i) != 0:
			return false
		case i < 0:
			ok = w.Skip()
		default:
			seen |= 1 << i
			ok = read(i)
		}
		if !ok {
			return false
		}
	}
	_, err := w.d.ReadToken()
	return err == nil
}

// Array reads the array that comes next, calling read for each element
// (read reads it, or reports false).
func (w *Walker) Array(read func() bool) bool {
	if tok, err := w.d.ReadToken(); err != nil || tok.Kind() != '[' {
		return false
	}
	for w.d.PeekKind() != ']' {
		if !read() {
			return false
		}
	}
	_, err := w.d.ReadToken()
	return err == nil
}

// Null reads the null that comes next (or any other literal or delimiter).
func (w *Walker) Null() bool {
	_, err := w.d.ReadToken()
	return err == nil
}

// Skip reads the next value, whatever it is.
func (w *Walker) Skip() bool { return w.d.SkipValue() == nil }

// Value reads the next value whole, white space trimmed; raw is part of
// the message given to Reset, valid as long as it is.
func (w *Walker) Value() (raw []byte, ok bool) {
	v, err := w.d.ReadValue()
	if err != nil {
		return nil, false
	}
	end := int(w.d.InputOffset())
	return w.data[end-len(v) : end], true
}

// Text reads a text field by the rules of probe.Text (an array of parts
// or one part alone; see Part), setting *has when it holds non-empty
// text; it reports false where decoding into probe.Text fails.
func (w *Walker) Text(has *bool) bool {
	if w.d.PeekKind() == '[' {
		return w.Array(func() bool { return w.Part(has) })
	}
	return w.Part(has)
}

// textNames and valueNames are the members of a content part and of its
// text.
var (
	textNames  = []string{"text"}
	valueNames = []string{"value"}
)

// Part reads one content part: null, a string, or an object whose "text"
// is null, a string or an object whose "value" is null or a string.
func (w *Walker) Part(has *bool) bool {
	if w.d.PeekKind() != '{' {
		return w.String(has)
	}
	return w.Object(textNames, func(int) bool {
		if w.d.PeekKind() != '{' {
			return w.String(has)
		}
		return w.Object(valueNames, func(int) bool { return w.String(has) })
	})
}

// String reads null or a string, setting *has when the string is not
// empty (a valid JSON string is empty only as "", whatever it escapes).
func (w *Walker) String(has *bool) bool {
	switch w.d.PeekKind() {
	case 'n', '"':
	default:
		return false
	}
	raw, ok := w.Value()
	*has = *has || ok && raw[0] == '"' && len(raw) > 2
	return ok
}

// Member returns the index in names of a member's name (a JSON string as
// read), matched as encoding/json matches a struct field: without regard
// to case; -1 when it is none of them. ok is false for a name with an
// escape or a byte past ASCII, which encoding/json might decode or fold
// (K, U+212A, folds to k) to one of names.
func Member(quoted []byte, names []string) (i int, ok bool) {
	name := quoted[1 : len(quoted)-1]
	for _, c := range name {
		if c == '\\' || c >= utf8.RuneSelf {
			return -1, false
		}
	}
	for i, n := range names {
		if equalFoldASCII(name, n) {
			return i, true
		}
	}
	return -1, true
}

// equalFoldASCII reports whether b and s, both ASCII, are equal without
// regard to case.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	if string(b) == s {
		return true
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

// lower returns c in lower case, if it is an ASCII letter.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// EmptyComposite reports whether raw, a valid JSON array or object as
// Value returns it, is empty.
func EmptyComposite(raw []byte) bool {
	return len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
}

// Items returns the number of items of raw, a JSON array, counting at most
// limit of them; 0 when raw is not an array (null, another value, or not
// valid). It keeps none of them.
func Items(raw []byte, limit int) int {
	d := jsontext.NewDecoder(bytes.NewReader(raw), allowDuplicates, allowBadUTF8)
	if tok, err := d.ReadToken(); err != nil || tok.Kind() != '[' {
		return 0
	}
	n := 0
	for n < limit && d.PeekKind() != ']' {
		if d.SkipValue() != nil {
			return n
		}
		n++
	}
	return n
}
