package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func FuzzReader(f *testing.F) {
	seeds := []string{
		"data: hello\n\n",
		"data: a\r\ndata: b\r\rdata: c\n\n",
		": keep-alive\n\nevent: error\nid: 3\ndata: {\"error\":\"x\"}\n\n",
		"data: [DONE]",
		"\xEF\xBB\xBFdata: 日本語\r",
		"data\nid\x00\nevent\n\n\r\n\r",
		// Heartbeats of relays and providers, and non-standard fields.
		"data:\n\ndata: \n\ndata:  \n\ndata: : keepalive\n\nevent: ping\ndata: {}\n\n",
		"event: ping\n\n:\n\nretry: 10\n\nid: 1\n\n",
		"error: {\"code\":400,\"message\":\"x\"}\n\ndata: [DONE]\n\n",
		"data: a\nerror: b\nfoo\nDATA: c\n\n",
		// Lines without a colon are fields named by the whole line.
		"x\nx\nx\nx\n\n",
		strings.Repeat("a:\n", MaxFields+1) + "\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i), uint8(8+i))
	}
	f.Fuzz(func(t *testing.T, input []byte, chunk, limit uint8) {
		maxBytes := 1 + int(limit)
		want, wantErr := readAll(NewReader(bytes.NewReader(input), maxBytes))
		if !errors.Is(wantErr, io.EOF) && !errors.Is(wantErr, ErrEventTooLarge) {
			t.Fatalf("error = %v, want EOF or too large", wantErr)
		}
		total := 0
		for _, ev := range want {
			if len(ev.Extra) > MaxFields {
				t.Fatalf("event of %d non-standard fields exceeds MaxFields", len(ev.Extra))
			}
			if size := charged(ev); size > maxBytes {
				t.Fatalf("event charged %d bytes exceeds the limit %d", size, maxBytes)
			}
			if len(ev.ID) > maxBytes {
				t.Fatalf("ID of %d bytes exceeds the limit %d", len(ev.ID), maxBytes)
			}
			total += len(ev.Data)
		}
		if total > len(input) {
			t.Fatalf("events carry %d data bytes, more than the %d input bytes", total, len(input))
		}
		raw, rawErr := readRaw(NewReader(bytes.NewReader(input), maxBytes))
		if errors.Is(rawErr, io.EOF) != errors.Is(wantErr, io.EOF) || !equalEvents(raw, want) {
			t.Fatalf("NextRaw: events = %+v, %v; want %+v, %v", raw, rawErr, want, wantErr)
		}
		others := map[string]io.Reader{
			"one byte": iotest.OneByteReader(bytes.NewReader(input)),
			"chunks":   &chunkReader{data: input, size: 1 + int(chunk)%16},
			"split":    &splitReader{data: input, cuts: []int{int(chunk) % (len(input) + 1)}},
		}
		for name, r := range others {
			got, err := readAll(NewReader(r, maxBytes))
			if errors.Is(err, io.EOF) != errors.Is(wantErr, io.EOF) {
				t.Fatalf("%s: error = %v, want %v", name, err, wantErr)
			}
			if !equalEvents(got, want) {
				t.Fatalf("%s: events = %+v, want %+v", name, got, want)
			}
		}
	})
}

// charged returns what ev kept, as the bound counts it: its data, its type,
// and each non-standard field's name and value with FieldOverhead. It
// fails the test at a standard field kept as non-standard.
func charged(ev Event) int {
	size := len(ev.Data) + len(ev.Type)
	for _, f := range ev.Extra {
		size += len(f.Name) + len(f.Value) + FieldOverhead
		if f.Name == "data" || f.Name == "event" || f.Name == "id" || f.Name == "retry" {
			panic("standard field " + f.Name + " kept as non-standard")
		}
	}
	return size
}
