package sse

import "bytes"

// bom is the UTF-8 byte order mark, which may lead the stream and is ignored.
var bom = []byte("\xEF\xBB\xBF")

// processLine interprets one line. It reports ok true with the event that a
// blank line dispatches.
func (r *Reader) processLine(line []byte) (ev Event, ok bool, err error) {
	if r.atStart {
		r.atStart = false
		line = bytes.TrimPrefix(line, bom)
	}
	if len(line) == 0 {
		if !r.hasData {
			r.typ = ""
			return Event{}, false, nil
		}
		return r.dispatch(), true, nil
	}
	if line[0] == ':' {
		return Event{}, false, nil
	}
	field, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		field, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(field) {
	case "event":
		r.typ = string(value)
	case "data":
		return Event{}, false, r.appendData(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
	}
	return Event{}, false, nil
}

// appendData adds one data line to the pending event.
func (r *Reader) appendData(value []byte) error {
	size := len(r.data) + len(value)
	if r.hasData {
		size++
	}
	if size > r.max {
		return r.tooLarge("event data")
	}
	if r.hasData {
		r.data = append(r.data, '\n')
	}
	r.data = append(r.data, value...)
	r.hasData = true
	return nil
}

// dispatch returns the pending event and clears it (the ID carries over).
func (r *Reader) dispatch() Event {
	ev := Event{Type: r.typ, Data: string(r.data), ID: r.id}
	r.data, r.hasData, r.typ = r.data[:0], false, ""
	return ev
}
