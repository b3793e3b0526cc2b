package openai

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe/internal/endless"
)

// TestBodyReaderGrowsToLimit reads bodies of several lengths with the
// default limit of a whole response plus the one byte that tells a body
// past it: the buffer doubles from 512 bytes but never past the limit,
// so reading an endless body allocates 512 + 1024 + … + 8 MiB (16 MiB −
// 512 bytes) and then the limit itself, 16 MiB + 1 byte, and keeps only
// the latter; a bytes.Buffer would grow to 32 MiB, and hold 48 MiB while
// it copies.
func TestBodyReaderGrowsToLimit(t *testing.T) {
	const limit = DefaultMaxBodyBytes + 1 // 16777217
	tests := []struct {
		name      string
		body      io.Reader
		wantLen   int
		wantCap   int
		wantAlloc uint64 // bytes of buffers allocated, hand-computed
	}{
		{"empty", strings.NewReader(""), 0, 512, 512},
		{"10 bytes", strings.NewReader(`{"a":"b"} `), 10, 512, 512},
		{"513 bytes", strings.NewReader(strings.Repeat(" ", 513)), 513, 1024, 512 + 1024},
		{"endless whitespace", endless.New("", " ", 64<<20), limit, limit, 16777216 - 512 + limit},
		{`endless {"a":`, endless.New("", `{"a":`, 64<<20), limit, limit, 16777216 - 512 + limit},
		{"exactly the limit", bytes.NewReader(make([]byte, limit)), limit, limit, 16777216 - 512 + limit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := new(bodyReader)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			data, err := r.read(tt.body, limit)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != tt.wantLen || cap(data) != tt.wantCap {
				t.Errorf("read %d bytes into a buffer of %d, want %d into %d", len(data), cap(data), tt.wantLen, tt.wantCap)
			}
			// Allocation rounds a small buffer up to its size class, and
			// the endless reader allocates a little of its own: 64 KiB of
			// slack, far below the 16 MiB more a doubling past the limit
			// would take.
			if got := after.TotalAlloc - before.TotalAlloc; got < tt.wantAlloc || got > tt.wantAlloc+64<<10 {
				t.Errorf("allocated %d bytes, want %d (+ at most 64 KiB)", got, tt.wantAlloc)
			}
		})
	}
}

// TestBodyReaderReuse: a buffer that stayed within maxPooledBody is
// reused from its start, and a later shorter body does not show the
// earlier one's bytes.
func TestBodyReaderReuse(t *testing.T) {
	r := new(bodyReader)
	if data, err := r.read(strings.NewReader("first body"), 100); err != nil || string(data) != "first body" {
		t.Fatalf("first read: %q, %v", data, err)
	}
	if data, err := r.read(strings.NewReader("two"), 100); err != nil || string(data) != "two" {
		t.Fatalf("second read: %q, %v", data, err)
	}
	if data, err := r.read(strings.NewReader("0123456789"), 4); err != nil || string(data) != "0123" {
		t.Fatalf("read past the limit: %q, %v, want the first 4 bytes", data, err)
	}
}
