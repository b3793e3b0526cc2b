// Package sse reads a Server-Sent Events stream (the text/event-stream format
// of the HTML Living Standard) one event at a time, with bounded memory.
//
// Lines may end with LF, CRLF or CR, also when the stream is split at any byte
// (a CRLF split across two reads is one line ending). Comments and blank
// keep-alives are skipped, and so is "retry". Unlike a browser, the reader
// dispatches a final event that is not followed by a blank line when the
// stream ends, so that a last "data: [DONE]" is not lost; it keeps the
// non-standard fields of an event (llama.cpp reports errors in a field
// named "error") in Event.Extra; and it dispatches a frame that has an
// event type or a non-standard field but no data (a browser drops it), so
// that "event: error" or "error: {…}" on its own is not lost. A frame with
// nothing but an id, a retry or comments is still not dispatched.
//
// Every byte the peer sends is charged: a line is at most the reader's
// limit long; an event's data (with its "\n" separators), its type and
// its non-standard fields together are at most the limit, a field costing
// its name, its value and FieldOverhead bytes (so a line without a colon,
// which is a field named by the whole line, is not free); and an event has
// at most MaxFields non-standard fields. Crossing any of them is
// ErrEventTooLarge, naming the bound. What a Reader keeps is therefore at
// most its read buffer (4 KiB), one partial line, one pending event and
// the last ID, each within the limit: about 4 × the limit in all, however
// long the stream. Comments and blank lines are not kept, so a stream of
// nothing else is bounded only by its reader's length: the caller bounds
// the bytes of a response.
package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEventBytes is the event size limit used when NewReader is given
// a limit of zero or less: 1 MiB.
const DefaultMaxEventBytes = 1 << 20

// FieldOverhead is what one non-standard field costs against the event
// limit besides its name and value, in bytes: the Field (two string
// headers) and the allocation of its two strings.
const FieldOverhead = 64

// MaxFields bounds the non-standard fields of one event; one more is
// ErrEventTooLarge.
const MaxFields = 64

// readSize is the size of one read from the underlying reader, in bytes.
const readSize = 4096

// maxEmptyReads is how many reads returning nothing and no error are
// tolerated in a row before giving up with io.ErrNoProgress.
const maxEmptyReads = 100

// ErrEventTooLarge is returned (wrapped) when one line, or one event (its
// data, type and non-standard fields), is longer than the reader's limit,
// or an event has more than MaxFields non-standard fields.
var ErrEventTooLarge = errors.New("event too large")

// Event is one dispatched event.
type Event struct {
	// Type is the event type from the "event" field; empty means "message".
	Type string
	// Data is the event's data lines joined with "\n"; it may be empty.
	Data string
	// ID is the last event ID seen so far in the stream (it carries over to
	// later events, as the standard says); empty when none was sent.
	ID string
	// Extra holds the event's fields that the standard does not define, in
	// the order they came; nil when there were none; at most MaxFields.
	// Each counts toward the event's size limit with its data: its name,
	// value and FieldOverhead.
	Extra []Field
}

// Field is one non-standard field of an event.
type Field struct {
	// Name is the field name, as written (field names are case-sensitive).
	Name string
	// Value is the field's value, without the one space that may follow the colon.
	Value string
}

// Lookup returns the value of the event's first non-standard field called
// name, and whether there was one.
func (e Event) Lookup(name string) (string, bool) { return lookup(e.Extra, name) }

// RawEvent is one dispatched event as Reader.NextRaw returns it: an Event
// whose Data is a view of the reader's buffer instead of a copy.
type RawEvent struct {
	// Type is the event type from the "event" field; empty means "message".
	Type string
	// Data is the event's data lines joined with "\n"; it may be empty. It
	// is valid until the next call of Next or NextRaw, and must not be
	// changed.
	Data []byte
	// ID is the last event ID seen so far in the stream (see Event.ID).
	ID string
	// Extra holds the event's non-standard fields (see Event.Extra).
	Extra []Field
}

// Lookup returns the value of the event's first non-standard field called
// name, and whether there was one.
func (e RawEvent) Lookup(name string) (string, bool) { return lookup(e.Extra, name) }

// lookup returns the value of the first field of extra called name.
func lookup(extra []Field, name string) (string, bool) {
	for _, f := range extra {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	src io.Reader
	max int

	buf        []byte // read buffer; buf[start:end] is not yet scanned
	start, end int
	line       []byte // start of a line whose end has not arrived yet
	skipLF     bool   // the last line ended with CR: a following LF belongs to it
	atStart    bool   // no line has been read yet (a byte order mark may lead)
	srcErr     error  // error from the underlying reader, reported once the buffer is used up
	err        error  // sticky error returned by every later Next

	data    []byte  // data lines of the pending event, joined with '\n'
	hasData bool    // at least one data line is pending
	typ     string  // pending event type
	lastTyp string  // the last event type read, reused while it repeats
	extra   []Field // pending non-standard fields
	size    int     // bytes charged to the pending event: data, type, fields
	id      string  // last event ID
}

// NewReader returns a Reader of r. maxEventBytes bounds both the length of a
// line and one event (data, type and non-standard fields, see the package
// doc), in bytes; zero or less means DefaultMaxEventBytes.
func NewReader(r io.Reader, maxEventBytes int) *Reader {
	if maxEventBytes <= 0 {
		maxEventBytes = DefaultMaxEventBytes
	}
	return &Reader{src: r, max: maxEventBytes, buf: make([]byte, readSize), atStart: true}
}

// Next returns the next event. At a clean end of the stream it returns
// io.EOF; a failed read of the underlying reader is returned wrapped, and an
// over-long event as ErrEventTooLarge. After an error every call returns it again.
func (r *Reader) Next() (Event, error) {
	ev, err := r.NextRaw()
	if err != nil {
		return Event{}, err
	}
	return Event{Type: ev.Type, Data: string(ev.Data), ID: ev.ID, Extra: ev.Extra}, nil
}

// NextRaw is Next without copying the event's data: the RawEvent's Data is
// valid until the next call of Next or NextRaw. An event whose lines all
// arrived in the buffer costs no allocation, unless it has non-standard
// fields, or a type or an ID other than the event's before it.
func (r *Reader) NextRaw() (RawEvent, error) {
	if r.err != nil {
		return RawEvent{}, r.err
	}
	for {
		line, err := r.readLine()
		if errors.Is(err, io.EOF) && r.pending() {
			r.err = io.EOF
			return r.dispatch(), nil
		}
		if err != nil {
			r.err = err
			return RawEvent{}, err
		}
		ev, ok, err := r.processLine(line)
		if err != nil {
			r.err = err
			return RawEvent{}, err
		}
		if ok {
			return ev, nil
		}
	}
}

// readLine returns the next line without its ending. At the end of the
// stream an unterminated last line is returned as a line, then io.EOF. The
// returned slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	empty := 0
	for {
		if line, ok, err := r.scan(); ok || err != nil {
			return line, err
		}
		if r.srcErr != nil {
			return r.finish()
		}
		n, err := r.src.Read(r.buf)
		r.start, r.end = 0, n
		r.srcErr = err
		if n == 0 && err == nil {
			if empty++; empty >= maxEmptyReads {
				r.srcErr = io.ErrNoProgress
			}
		}
	}
}

// scan looks for a line ending in the unscanned part of the buffer. Without
// one it keeps the bytes as the start of a line and reports ok false.
func (r *Reader) scan() (line []byte, ok bool, err error) {
	if r.start >= r.end {
		return nil, false, nil
	}
	if r.skipLF {
		r.skipLF = false
		if r.buf[r.start] == '\n' {
			r.start++
		}
	}
	chunk := r.buf[r.start:r.end]
	i := lineEnd(chunk)
	if i < 0 {
		if len(r.line)+len(chunk) > r.max {
			return nil, false, r.tooLarge("line")
		}
		r.line = append(r.line, chunk...)
		r.start = r.end
		return nil, false, nil
	}
	if len(r.line)+i > r.max {
		return nil, false, r.tooLarge("line")
	}
	r.start += i + 1
	r.skipLF = chunk[i] == '\r'
	if len(r.line) == 0 {
		return chunk[:i], true, nil
	}
	line = append(r.line, chunk[:i]...)
	r.line = line[:0]
	return line, true, nil
}

// lineEnd returns the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	before := b
	if lf >= 0 {
		before = b[:lf]
	}
	if cr := bytes.IndexByte(before, '\r'); cr >= 0 {
		return cr
	}
	return lf
}

// finish is called when the buffer is used up and the underlying reader has
// failed or ended: it returns the unterminated last line, if any, and then
// the reader's error.
func (r *Reader) finish() ([]byte, error) {
	if len(r.line) > 0 {
		line := r.line
		r.line = nil
		return line, nil
	}
	if errors.Is(r.srcErr, io.EOF) {
		return nil, io.EOF
	}
	return nil, fmt.Errorf("could not read event stream: %w", r.srcErr)
}

func (r *Reader) tooLarge(what string) error {
	return fmt.Errorf("%w: %s longer than %d bytes", ErrEventTooLarge, what, r.max)
}
