package openai

import (
	"sync"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/jsonwalk"
)

// walker reads a chunk as decoding into chunk and chunk.decoded would,
// by walking its tokens (see jsonwalk): every member has the type chunk
// requires, and text fields probe.Text's shapes.
type walker struct{ jsonwalk.Walker }

// walkers holds walkers for reuse.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// The member names read at each level, in order of their index.
var (
	topNames    = []string{"choices", "usage", "error", "type", "object", "message", "detail"}
	choiceNames = []string{"delta", "message", "text", "finish_reason", "error"}
	deltaNames  = []string{"content", "refusal", "reasoning_content", "reasoning", "tool_calls", "function_call"}
	usageNames  = []string{"prompt_tokens", "completion_tokens"}
)

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
	w.Reset(data)
	var t topError
	switch w.Kind() {
	case 'n':
		if !w.Null() {
			return false
		}
	case '{':
		if !w.Object(topNames, func(i int) bool { return w.topMember(i, &t, d) }) {
			return false
		}
	default:
		return false
	}
	if !w.End() {
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
	raw, ok := w.Value()
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
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '[':
		d.listed = true
		// Past MaxResponseItems the walk gives up, and the decoding
		// with encoding/json fails naming the bound (boundedList).
		return w.Array(func() bool { d.choices++; return d.choices <= probe.MaxResponseItems && w.choice(d) })
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
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '{':
	default:
		return false
	}
	var c choiceError
	if !w.Object(choiceNames, func(i int) bool { return w.choiceMember(i, &c, d) }) {
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
		return w.Text(&d.visible)
	case 3:
		return w.finishReason(c, d)
	}
	raw, ok := w.Value()
	if ok && probe.Truthy(raw) {
		c.errorSet, c.err = true, probe.ParseServerError(raw)
	}
	return ok
}

// finishReason reads a "finish_reason": null or a string.
func (w *walker) finishReason(c *choiceError, d *decoded) bool {
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '"':
	default:
		return false
	}
	raw, ok := w.Value()
	d.finished = d.finished || len(raw) > 2
	c.finishError = isErrorKind(raw)
	return ok
}

// delta reads a delta or a message: null or an object.
func (w *walker) delta(d *decoded) bool {
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '{':
		return w.Object(deltaNames, func(i int) bool { return w.deltaMember(i, d) })
	}
	return false
}

// deltaMember reads the delta's member deltaNames[i].
func (w *walker) deltaMember(i int, d *decoded) bool {
	switch i {
	case 0, 1:
		return w.Text(&d.visible)
	case 2, 3:
		return w.Text(&d.token)
	case 4:
		return w.toolCalls(d)
	}
	raw, ok := w.Value()
	d.token = d.token || ok && present(raw)
	return ok
}

// toolCalls reads "tool_calls": null or an array, a token when not empty.
func (w *walker) toolCalls(d *decoded) bool {
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '[':
		// Past MaxResponseItems the walk gives up, and the decoding
		// with encoding/json fails naming the bound (boundedList).
		n := 0
		ok := w.Array(func() bool { n++; return n <= probe.MaxResponseItems && w.Skip() })
		d.token = d.token || ok && n > 0
		return ok
	}
	return false
}

// usage reads a usage member: null, an object (a report), or any other
// value (a malformed report).
func (w *walker) usage(r *usageReport) bool {
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '{':
		r.state = usageGiven
		return w.Object(usageNames, func(i int) bool {
			raw, ok := w.Value()
			count := &r.prompt
			if i == 1 {
				count = &r.completion
			}
			_ = count.UnmarshalJSON(raw) // never fails
			return ok
		})
	}
	r.state = usageMalformed
	return w.Skip()
}
