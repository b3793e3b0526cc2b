package jsonwalk

import (
	"encoding/json"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// textSeeds are text fields of every shape probe.Text reads or rejects.
var textSeeds = []string{
	`null`, `""`, `"a"`, `"\u0000"`, `"\ud800"`, "\"\xff\"", `5`, `true`, `{}`, `[]`, `[""]`, `["","a"]`, `[null,""]`, `[5]`, `[[]]`,
	`{"text":"a"}`, `{"text":""}`, `{"text":null}`, `{"type":"image_url"}`, `{"text":5}`, `{"text":{"value":"v"}}`,
	`{"text":{"value":""}}`, `{"text":{"value":5}}`, `{"text":{"annotations":[]}}`, `{"Text":"a"}`, `{"TEXT":{"VALUE":"v"}}`,
	`{"text":"","text":"a"}`, `{"te\u0078t":"a"}`, `[{"type":"text","text":"a"},{"type":"image_url"}]`, ` [ "a" ] `, `"a" "b"`, `[`, `{"text":}`,
}

// FuzzText holds Walker.Text to decoding into probe.Text: what the walk
// reads, decoding reads alike, and what decoding rejects the walk does
// not accept.
func FuzzText(f *testing.F) {
	for _, s := range textSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want probe.Text
		wantErr := json.Unmarshal(data, &want)
		var w Walker
		w.Reset(data)
		var has bool
		if w.Text(&has) && w.End() {
			if wantErr != nil || has != bool(want) {
				t.Fatalf("%q: the walk reads %v, probe.Text %v, %v", data, has, want, wantErr)
			}
		}
	})
}

// TestTextShapes checks what the walk reads of text fields against
// hand-written values; ok false leaves the field to encoding/json.
func TestTextShapes(t *testing.T) {
	tests := []struct {
		in      string
		has, ok bool
	}{
		{`null`, false, true}, {`""`, false, true}, {`"\u0000"`, true, true}, {`["","a"]`, true, true}, {`[null,""]`, false, true},
		{`{"text":{"value":"v"}}`, true, true}, {`{"TEXT":{"VALUE":"v"}}`, true, true}, {`{"type":"image_url"}`, false, true},
		{`5`, false, false}, {`[[]]`, false, false}, {`{"text":5}`, false, false}, {`{"text":"","text":"a"}`, false, false},
		{`{"te\u0078t":"a"}`, false, false}, {`{"tèxt":"a"}`, false, false},
	}
	for _, tt := range tests {
		var w Walker
		w.Reset([]byte(tt.in))
		var has bool
		ok := w.Text(&has) && w.End()
		if ok != tt.ok || ok && has != tt.has {
			t.Errorf("%s: has %v, ok %v; want %v, %v", tt.in, has, ok, tt.has, tt.ok)
		}
	}
}

// TestValueIsPartOfMessage checks that Value returns the value's own
// bytes of the message, without the white space around it.
func TestValueIsPartOfMessage(t *testing.T) {
	data := []byte(" { \"a\" : [ 1 , {} ] \n, \"b\":\"x\"\t} ")
	var w Walker
	w.Reset(data)
	var got []string
	ok := w.Object([]string{"a", "b"}, func(int) bool {
		raw, ok := w.Value()
		got = append(got, string(raw))
		return ok
	}) && w.End()
	if !ok || len(got) != 2 || got[0] != "[ 1 , {} ]" || got[1] != `"x"` {
		t.Fatalf("values %q, ok %v", got, ok)
	}
}

// TestMember checks name matching: without regard to ASCII case, and not
// sure of a name with an escape or a byte past ASCII.
func TestMember(t *testing.T) {
	names := []string{"choices", "finish_reason"}
	tests := []struct {
		name string
		i    int
		ok   bool
	}{
		{`"choices"`, 0, true}, {`"Choices"`, 0, true}, {`"FINISH_REASON"`, 1, true}, {`"finish-reason"`, -1, true},
		{`"choice"`, -1, true}, {`""`, -1, true}, {`"\u0063hoices"`, -1, false}, {"\"fini\u017fh_reason\"", -1, false},
	}
	for _, tt := range tests {
		if i, ok := Member([]byte(tt.name), names); i != tt.i || ok != tt.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tt.name, i, ok, tt.i, tt.ok)
		}
	}
}
