package openai

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/llmprober/llmprober/probe"
)

// walker reads a chunk by walking its JSON tokens with a jsontext.Decoder,
// which validates the text as it goes, reading only the members the
// prober needs and skipping the rest, with no allocation. Its syntax is
// encoding/json's: duplicate names and invalid UTF-8 are allowed. Its
// reading is chunk's: member names match without regard to ASCII case,
// and every member has the type decoding into chunk requires. What it
// cannot be sure to read as encoding/json does (a name with an escape or a
// byte past ASCII, a member that comes twice, any value of a wrong type) it
// reports not ok, and the chunk is decoded by encoding/json instead.
type walker struct {
	d   jsontext.Decoder
	buf bytes.Buffer // the chunk, which the decoder reads in place
}

// walkers holds walkers for reuse.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// The syntax options of encoding/json.
var (
	allowDuplicates = jsontext.AllowDuplicateNames(true)
	allowBadUTF8    = jsontext.AllowInvalidUTF8(true)
)

// The member names read at each level, in order of their index.
var (
	topNames    = []string{"choices", "usage", "error", "type", "object", "message", "detail"}
	choiceNames = []string{"delta", "message", "text", "finish_reason", "error"}
	deltaNames  = []string{"content", "refusal", "reasoning_content", "reasoning", "tool_calls", "function_call"}
	usageNames  = []string{"prompt_tokens", "completion_tokens"}
	textNames   = []string{"text"}
	valueNames  = []string{"value"}
)

// reset makes the walker read data from its start.
func (w *walker) reset(data []byte) {
	w.buf = *bytes.NewBuffer(data)
	w.d.Reset(&w.buf, allowDuplicates, allowBadUTF8)
}

// topError is what a chunk's top level says of an error.
type topError struct {
	errorSet  bool // "error" is set (probe.Truthy)
	errorKind bool // "type" or "object" is "error"
	message   bool // "message" is a non-empty string
	detail    bool // "detail" is set
}

// chunk reads data into d as decoding into chunk and chunk.decoded would;
// ok false means that it could not (see walker), and d is to be dropped.
func (w *walker) chunk(data []byte, d *decoded) bool {
	w.reset(data)
	var t topError
	switch w.d.PeekKind() {
	case 'n':
		if !w.null() {
			return false
		}
	case '{':
		if !w.object(topNames, func(i int) bool { return w.topMember(i, &t, d) }) {
			return false
		}
	default:
		return false
	}
	if _, err := w.d.ReadToken(); !errors.Is(err, io.EOF) {
		return false // more than one value, or trailing bytes
	}
	d.token = d.token || d.visible
	if t.errorSet || t.errorKind || !d.listed && (t.message || t.detail) {
		d.failed, d.err = true, probe.ParseServerError(data)
	}
	return true
}

// topMember reads the top-level member topNames[i].
func (w *walker) topMember(i int, t *topError, d *decoded) bool {
	if i == 0 {
		return w.choices(d)
	}
	if i == 1 {
		return w.usage(&d.usage)
	}
	raw, ok := w.value()
	switch i {
	case 2:
		t.errorSet = probe.Truthy(raw)
	case 3, 4:
		t.errorKind = t.errorKind || isErrorKind(raw)
	case 5:
		t.message = ok && raw[0] == '"' && len(raw) > 2
	case 6:
		t.detail = probe.Truthy(raw)
	}
	return ok
}

// choices reads a "choices" member: null or an array of choices.
func (w *walker) choices(d *decoded) bool {
	switch w.d.PeekKind() {
	case 'n':
		return w.null()
	case '[':
		d.listed = true
		return w.array(func() bool { d.choices++; return w.choice(d) })
	}
	return false
}

// choiceError is what one choice says of an error.
type choiceError struct {
	errorSet    bool              // "error" is set
	err         probe.ServerError // the error it reports
	finishError bool              // "finish_reason" is "error"
}

// choice reads one choice: null or an object. The first choice that
// reports an error sets d's.
func (w *walker) choice(d *decoded) bool {
	switch w.d.PeekKind() {
	case 'n':
		return w.null()
	case '{':
	default:
		return false
	}
	var c choiceError
	if !w.object(choiceNames, func(i int) bool { return w.choiceMember(i, &c, d) }) {
		return false
	}
	switch {
	case d.failed:
	case c.errorSet:
		d.failed, d.err = true, c.err
	case c.finishError:
		d.failed, d.err = true, probe.ServerError{Message: `finish_reason "error"`}
	}
	return true
}

// choiceMember reads the choice's member choiceNames[i].
func (w *walker) choiceMember(i int, c *choiceError, d *decoded) bool {
	switch i {
	case 0, 1:
		return w.delta(d)
	case 2:
		return w.text(&d.visible)
	case 3:
		return w.finishReason(c, d)
	}
	raw, ok := w.value()
	if ok && probe.Truthy(raw) {
		c.errorSet, c.err = true, probe.ParseServerError(raw)
	}
	return ok
}

// finishReason reads a "finish_reason": null or a string.
func (w *walker) finishReason(c *choiceError, d *decoded) bool {
	switch w.d.PeekKind() {
	case 'n':
		return w.null()
	case '"':
	default:
		return false
	}
	raw, ok := w.value()
	d.finished = d.finished || len(raw) > 2
	c.finishError = isErrorKind(raw)
	return ok
}

// delta reads a delta or a message: null or an object.
func (w *walker) delta(d *decoded) bool {
	switch w.d.PeekKind() {
	case 'n':
		return w.null()
	case '{':
		return w.object(deltaNames, func(i int) bool { return w.deltaMember(i, d) })
	}
	return false
}

// deltaMember reads the delta's member deltaNames[i].
func (w *walker) deltaMember(i int, d *decoded) bool {
	switch i {
	case 0, 1:
		return w.text(&d.visible)
	case 2, 3:
		return w.text(&d.token)
	case 4:
		return w.toolCalls(d)
	}
	raw, ok := w.value()
	d.token = d.token || ok && present(raw)
	return ok
}

// toolCalls reads "tool_calls": null or an array, a token when not empty.
func (w *walker) toolCalls(d *decoded) bool {
	switch w.d.PeekKind() {
	case 'n':
		return w.null()
	case '[':
		raw, ok := w.value()
		d.token = d.token || ok && !emptyComposite(raw)
		return ok
	}
	return false
}

// text reads a text field as probe.Text does, setting *has when it holds
// non-empty text: an array of parts or one part alone.
func (w *walker) text(has *bool) bool {
	if w.d.PeekKind() == '[' {
		return w.array(func() bool { return w.part(has) })
	}
	return w.part(has)
}

// part reads one content part: null, a string, or an object whose "text"
// is null, a string or an object whose "value" is null or a string.
func (w *walker) part(has *bool) bool {
	if w.d.PeekKind() != '{' {
		return w.str(has)
	}
	return w.object(textNames, func(int) bool {
		if w.d.PeekKind() != '{' {
			return w.str(has)
		}
		return w.object(valueNames, func(int) bool { return w.str(has) })
	})
}

// str reads null or a string, setting *has when the string is not empty.
func (w *walker) str(has *bool) bool {
	switch w.d.PeekKind() {
	case 'n', '"':
	default:
		return false
	}
	raw, ok := w.value()
	*has = *has || ok && raw[0] == '"' && len(raw) > 2 // a valid JSON string is empty only as ""
	return ok
}

// usage reads a usage member: null, an object (a report), or any other
// value (a malformed report).
func (w *walker) usage(r *usageReport) bool {
	switch w.d.PeekKind() {
	case 'n':
		return w.null()
	case '{':
		r.state = usageGiven
		return w.object(usageNames, func(i int) bool {
			raw, ok := w.value()
			count := &r.prompt
			if i == 1 {
				count = &r.completion
			}
			_ = count.UnmarshalJSON(raw) // never fails
			return ok
		})
	}
	r.state = usageMalformed
	return w.d.SkipValue() == nil
}

// object reads the object that comes next, calling read(i) for its member
// named names[i] (read reads the value) and skipping the others. It
// reports false at the first name it cannot match for sure (see member),
// at a member of names that comes twice, when read does, and at any
// syntax error.
func (w *walker) object(names []string, read func(i int) bool) bool {
	if tok, err := w.d.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	var seen uint
	for w.d.PeekKind() != '}' {
		name, err := w.d.ReadValue()
		if err != nil {
			return false
		}
		i, ok := member(name, names)
		switch {
		case !ok || i >= 0 && seen&(1<<i) != 0:
			return false
		case i < 0:
			ok = w.d.SkipValue() == nil
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

// array reads the array that comes next, calling read for each element
// (read reads it, or reports false).
func (w *walker) array(read func() bool) bool {
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

// null reads the null that comes next.
func (w *walker) null() bool {
	_, err := w.d.ReadToken()
	return err == nil
}

// value reads the next value whole; it is valid until the next read.
func (w *walker) value() ([]byte, bool) {
	raw, err := w.d.ReadValue()
	return raw, err == nil
}

// member returns the index in names of a member's name (a JSON string as
// read), matched as encoding/json matches a struct field: without regard
// to case; -1 when it is none of them. ok is false for a name with an
// escape or a byte past ASCII, which encoding/json might decode or fold
// (K, U+212A, folds to k) to one of names.
func member(quoted []byte, names []string) (i int, ok bool) {
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

// emptyComposite reports whether raw, a valid JSON array or object, is
// empty.
func emptyComposite(raw []byte) bool {
	return len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
}
