package sse

import (
	"bytes"
	"errors"
	"testing"
)

// readRaw reads events with NextRaw, copying each one's data before the
// next call, as a caller of NextRaw that keeps data must.
func readRaw(r *Reader) ([]Event, error) {
	var evs []Event
	for {
		ev, err := r.NextRaw()
		if err != nil {
			return evs, err
		}
		evs = append(evs, Event{Type: ev.Type, Data: string(ev.Data), ID: ev.ID, Extra: ev.Extra})
		if len(evs) > 1<<16 {
			return evs, errors.New("too many events")
		}
	}
}

// TestNextRawAsNext checks that NextRaw reads the same events as Next,
// for inputs of every feature, however they are delivered.
func TestNextRawAsNext(t *testing.T) {
	inputs := []string{
		"data: hello\n\ndata: a\r\ndata: b\r\rdata: c\n\n",
		"event: a\nid: 1\ndata: x\n\nevent: a\ndata: y\n\nid\nevent: b\ndata: z\n\nid: 1\ndata: w\n\n",
		"\xEF\xBB\xBFerror: {\"code\":400}\n\nretry: 3\nfoo\n\ndata: [DONE]",
	}
	for _, in := range inputs {
		want, wantErr := readAll(NewReader(bytes.NewReader([]byte(in)), 0))
		for _, c := range deliveries([]byte(in)) {
			got, err := readRaw(NewReader(c.r, 0))
			if !errors.Is(err, wantErr) || !equalEvents(got, want) {
				t.Fatalf("%q, %s: events %+v, %v; want %+v, %v", in, c.name, got, err, want, wantErr)
			}
		}
	}
}

// TestNextRawAllocs bounds what reading a stream costs: one chat chunk
// after another, each one line of data (as servers flush them), typed
// alike, is read without any allocation.
func TestNextRawAllocs(t *testing.T) {
	event := []byte("event: message\ndata: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n")
	body := bytes.Repeat(event, 200)
	src := bytes.NewReader(body)
	r := NewReader(src, 0)
	if _, err := r.NextRaw(); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		ev, err := r.NextRaw()
		if err != nil || string(ev.Data) != `{"choices":[{"delta":{"content":"hi"}}]}` || ev.Type != "message" {
			t.Fatalf("NextRaw = %q %q, %v", ev.Type, ev.Data, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per event, want 0", allocs)
	}
}
