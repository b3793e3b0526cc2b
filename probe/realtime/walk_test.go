package realtime

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// walkSeeds are messages that only encoding/json's rules decide: names in
// another case, escaped or repeated, types escaped or not UTF-8, values of
// the wrong type, odd JSON.
var walkSeeds = []string{
	`{"Type":"transcription.delta","DELTA":"hi"}`, `{"t\u0079pe":"error"}`, `{"type":"\u0065rror"}`, "{\"type\":\"x\xff\"}",
	`{"type":"transcription.delta","type":"error"}`, `{"type":5}`, `{"type":null,"delta":"x"}`, `null`, `[]`, `{} {}`, `{"type":"a",}`,
	`{"type":"transcription.done","text":{"text":{"value":"v"}},"transcript":[null],"usage":null,"error":null}`,
	`{"type":"transcription.done","usage":{"input_tokens":1},"usage":{"output_tokens":2}}`, `{"type":"x","delta":5}`,
	`{"type":"conversation.item.input_audio_transcription.delta","item_id":"i","delta":" a"}`, `{"type":"日本"}`,
}

// FuzzDecodeEvent holds the walk of a server message to encoding/json:
// whatever the walk reads, decoding into serverEvent reads alike, and what
// encoding/json rejects the walk does not accept. What either keeps of a
// message (its type, usage and error) is at most 3 bytes per byte of it
// (an invalid UTF-8 byte of the type is kept as the 3 bytes of U+FFFD).
func FuzzDecodeEvent(f *testing.F) {
	for _, s := range append(serverEventSeeds, walkSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = probe.TrimBOM(data)
		var want serverEvent
		wantErr := json.Unmarshal(data, &want)
		if kept := len(want.Type) + len(want.Usage) + len(want.Error); kept > 3*len(data) {
			t.Fatalf("%q: encoding/json keeps %d bytes of a %d-byte message", data, kept, len(data))
		}
		var got serverEvent
		if !new(walker).event(data, &got) {
			return
		}
		if kept := len(got.Type) + len(got.Usage) + len(got.Error); kept > 3*len(data) {
			t.Fatalf("%q: the walk keeps %d bytes of a %d-byte message", data, kept, len(data))
		}
		if wantErr != nil {
			t.Fatalf("%q: the walk accepts it, encoding/json fails: %v", data, wantErr)
		}
		if got.Type != want.Type || got.Delta != want.Delta || got.Text != want.Text || got.Transcript != want.Transcript ||
			!bytes.Equal(got.Usage, want.Usage) || !bytes.Equal(got.Error, want.Error) || (got.Usage == nil) != (want.Usage == nil) || (got.Error == nil) != (want.Error == nil) {
			t.Fatalf("%q: the walk reads\n%+v\nencoding/json\n%+v", data, got, want)
		}
	})
}

// TestWalkEvents checks that the events servers send are read by the
// walk, and a transcript delta without allocating.
func TestWalkEvents(t *testing.T) {
	for _, s := range serverEventSeeds[:6] {
		var ev serverEvent
		if !new(walker).event([]byte(s), &ev) {
			t.Errorf("%s: not read by the walk", s)
		}
	}
	w := new(walker)
	data := []byte(`{"type":"transcription.delta","delta":" hello"}`)
	allocs := testing.AllocsPerRun(100, func() {
		var ev serverEvent
		if !w.event(data, &ev) || ev.Type != EventDelta || !bool(ev.Delta) {
			t.Fatalf("event %+v", ev)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations, want 0", allocs)
	}
}
