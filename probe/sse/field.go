package sse

import (
	"bytes"
	"fmt"
)

// bom is the UTF-8 byte order mark, which may lead the stream and is ignored.
var bom = []byte("\xEF\xBB\xBF")

// processLine interprets one line. It reports ok true with the event that a
// blank line dispatches.
func (r *Reader) processLine(line []byte) (ev RawEvent, ok bool, err error) {
	if r.atStart {
		r.atStart = false
		line = bytes.TrimPrefix(line, bom)
	}
	if len(line) == 0 {
		if !r.pending() {
			return RawEvent{}, false, nil
		}
		return r.dispatch(), true, nil
	}
	if line[0] == ':' {
		return RawEvent{}, false, nil
	}
	field, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(field) {
	case "event":
		return RawEvent{}, false, r.setType(value)
	case "data":
		return RawEvent{}, false, r.appendData(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.id {
			r.id = string(value)
		}
	case "retry":
	default:
		return RawEvent{}, false, r.appendExtra(field, value)
	}
	return RawEvent{}, false, nil
}

// pending reports whether a blank line would dispatch an event: it has
// data, a type or a non-standard field.
func (r *Reader) pending() bool { return r.hasData || r.typ != "" || r.extra != nil }

// grow accounts for n more bytes of the pending event.
func (r *Reader) grow(n int) error {
	if r.size+n > r.max {
		return r.tooLarge("event (data, type and fields)")
	}
	r.size += n
	return nil
}

// appendData adds one data line to the pending event.
func (r *Reader) appendData(value []byte) error {
	n := len(value)
	if r.hasData {
		n++
	}
	if err := r.grow(n); err != nil {
		return err
	}
	if r.hasData {
		r.data = append(r.data, '\n')
	}
	r.data = append(r.data, value...)
	r.hasData = true
	return nil
}

// setType sets the pending event's type, charged to the event (a repeated
// "event" line replaces the type but is charged again: the lines are the
// peer's, and charging them all keeps the count simple and safe).
func (r *Reader) setType(value []byte) error {
	if err := r.grow(len(value)); err != nil {
		return err
	}
	if string(value) != r.lastTyp {
		r.lastTyp = string(value)
	}
	r.typ = r.lastTyp
	return nil
}

// appendExtra adds one non-standard field to the pending event, charged
// its name, its value and FieldOverhead.
func (r *Reader) appendExtra(field, value []byte) error {
	if len(r.extra) >= MaxFields {
		return fmt.Errorf("%w: more than %d non-standard fields in one event", ErrEventTooLarge, MaxFields)
	}
	if err := r.grow(len(field) + len(value) + FieldOverhead); err != nil {
		return err
	}
	r.extra = append(r.extra, Field{Name: string(field), Value: string(value)})
	return nil
}

// dispatch returns the pending event and clears it (the ID carries over).
// Its data is r.data, valid until the next line is appended.
func (r *Reader) dispatch() RawEvent {
	ev := RawEvent{Type: r.typ, Data: r.data, ID: r.id, Extra: r.extra}
	r.data, r.hasData, r.typ, r.extra, r.size = r.data[:0], false, "", nil, 0
	return ev
}
