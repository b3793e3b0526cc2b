package sse

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe/internal/endless"
)

// maxRetained bounds the live heap one Reader keeps with the default
// limit (1 MiB), in bytes: its read buffer (4 KiB), one partial line, one
// pending event's data, type and fields and the last ID, each at most the
// limit (4 MiB), and 1 MiB of slack for the test's own samples.
const maxRetained = 5 << 20

// TestAmplification feeds every adversarial shape of an event stream,
// generated lazily, at two lengths (4 and 16 MiB), through a Reader with
// the default limit: each ends with the bound it crosses named in the
// error (or at the end of the input, for what is never kept), and the live
// heap while reading stays under maxRetained at both lengths. Before
// field names were charged, 16 MiB of "x\n" kept 910 MiB.
func TestAmplification(t *testing.T) {
	tests := map[string]string{
		"no colons":                    "more than 64 non-standard fields",
		"no newlines":                  "line longer than 1048576 bytes",
		"one giant field":              "line longer than 1048576 bytes",
		"one giant non-standard field": "line longer than 1048576 bytes",
		"many tiny fields":             "more than 64 non-standard fields",
		"many data lines":              "event (data, type and fields) longer than 1048576 bytes",
		"many event types":             "event (data, type and fields) longer than 1048576 bytes",
		"comments forever":             "EOF",
		"blank lines forever":          "EOF",
		"compressed junk":              "event too large: ",
	}
	for _, shape := range endless.SSEShapes() {
		want, ok := tests[shape.Name]
		if !ok {
			t.Fatalf("shape %q has no expected end", shape.Name)
		}
		t.Run(shape.Name, func(t *testing.T) {
			for _, n := range []int64{4 << 20, 16 << 20} {
				retained, err := amplify(shape, n)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("%d bytes: error %v, want one containing %q", n, err, want)
				}
				if want != "EOF" && !errors.Is(err, ErrEventTooLarge) {
					t.Fatalf("%d bytes: error %v is not ErrEventTooLarge", n, err)
				}
				if retained > maxRetained {
					t.Errorf("%d bytes: live heap grew by %d bytes while reading, want at most %d", n, retained, maxRetained)
				}
				t.Logf("%d MiB of input: live heap grew by at most %d bytes", n>>20, retained)
			}
		})
	}
}

// amplify reads n bytes of shape with a default Reader until an error and
// returns the largest growth of the live heap while reading, and the error.
func amplify(shape endless.Shape, n int64) (uint64, error) {
	base := endless.LiveHeap()
	src := endless.New(shape.Prefix, shape.Pattern, n)
	r := NewReader(src, 0)
	var err error
	for err == nil {
		_, err = r.NextRaw()
	}
	peak := max(src.Peak(), endless.LiveHeap())
	runtime.KeepAlive(r)
	if errors.Is(err, io.EOF) {
		err = io.EOF
	}
	return max(peak, base) - base, err
}
