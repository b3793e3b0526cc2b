package realtime

import (
	"bytes"
	"sync"
	"unicode/utf8"

	"github.com/llmprober/llmprober/probe/jsonwalk"
)

// walker reads a server event as decoding into serverEvent would, by
// walking its tokens (see jsonwalk); it keeps the usage and error members
// as parts of the message, not copies.
type walker struct{ jsonwalk.Walker }

// walkers holds walkers for reuse.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// eventNames are the members of serverEvent, in order of their index.
var eventNames = []string{"type", "delta", "text", "transcript", "usage", "error"}

// knownTypes maps every event type of the protocol to itself, so that an
// event of a known type is given the constant, not a copy.
var knownTypes = func() map[string]string {
	known := map[string]string{}
	for _, m := range []map[string]bool{createdEvents, deltaEvents, doneEvents, errorEvents, ignoredEvents} {
		for t := range m {
			known[t] = t
		}
	}
	return known
}()

// walkEvent reads data into ev; false means that it could not (see
// jsonwalk), and ev is to be dropped.
func walkEvent(data []byte, ev *serverEvent) bool {
	w := walkers.Get().(*walker)
	ok := w.event(data, ev)
	w.Reset(nil) // keep no reference to data in the pool
	walkers.Put(w)
	return ok
}

// event reads one message: null or an object.
func (w *walker) event(data []byte, ev *serverEvent) bool {
	w.Reset(data)
	switch w.Kind() {
	case 'n':
		return w.Null() && w.End()
	case '{':
		return w.Object(eventNames, func(i int) bool { return w.member(i, ev) }) && w.End()
	}
	return false
}

// member reads the event's member eventNames[i].
func (w *walker) member(i int, ev *serverEvent) bool {
	switch i {
	case 0:
		return w.eventType(ev)
	case 1:
		return w.Text((*bool)(&ev.Delta))
	case 2:
		return w.Text((*bool)(&ev.Text))
	case 3:
		return w.Text((*bool)(&ev.Transcript))
	}
	raw, ok := w.Value()
	if i == 4 {
		ev.Usage = raw
	} else {
		ev.Error = raw
	}
	return ok
}

// eventType reads "type": null, or a string without escapes that is
// valid UTF-8 (others are decoded by encoding/json).
func (w *walker) eventType(ev *serverEvent) bool {
	switch w.Kind() {
	case 'n':
		return w.Null()
	case '"':
	default:
		return false
	}
	raw, ok := w.Value()
	if !ok {
		return false
	}
	name := raw[1 : len(raw)-1]
	if bytes.IndexByte(name, '\\') >= 0 || !utf8.Valid(name) {
		return false
	}
	if t, known := knownTypes[string(name)]; known {
		ev.Type = t
	} else {
		ev.Type = string(name)
	}
	return true
}
