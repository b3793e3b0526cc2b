// Package endless generates adversarial input lazily, for the
// amplification tests of the parsers that read what a peer or a file
// sends: a Reader yields a prefix and then one pattern over and over, up
// to a length (or forever), without ever holding more than a 64 KiB block
// of it, and samples the live heap as it goes, so that a test can assert
// what a parser keeps while it reads, whatever the input's length.
package endless

import (
	"bytes"
	"compress/gzip"
	"io"
	"runtime"
	"strings"
	"sync"
)

// blockSize is the size of the block of repeated pattern a Reader copies
// from, in bytes.
const blockSize = 64 << 10

// SampleEvery is how often a Reader samples the live heap, in bytes read.
const SampleEvery = 1 << 20

// Reader yields Prefix, then Pattern repeated, N bytes in all (N < 0:
// forever), then io.EOF. Every SampleEvery bytes it collects the garbage
// and records the live heap; Peak returns the largest sample. It is safe
// for one reader and any number of Peak callers.
type Reader struct {
	prefix []byte
	block  []byte // the pattern repeated to at least blockSize
	period int    // len(pattern)
	n      int64
	off    int64
	next   int64 // offset of the next heap sample

	mu   sync.Mutex
	peak uint64
}

// New returns a Reader of prefix then pattern (not empty) repeated, n bytes
// in all; n < 0 is endless.
func New(prefix, pattern string, n int64) *Reader {
	reps := blockSize/len(pattern) + 2
	return &Reader{prefix: []byte(prefix), block: bytes.Repeat([]byte(pattern), reps),
		period: len(pattern), n: n, next: SampleEvery}
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if r.n >= 0 && r.off >= r.n {
		return 0, io.EOF
	}
	if r.n >= 0 {
		p = p[:min(int64(len(p)), r.n-r.off)]
	}
	var k int
	if r.off < int64(len(r.prefix)) {
		k = copy(p, r.prefix[r.off:])
	} else {
		at := int((r.off - int64(len(r.prefix))) % int64(r.period))
		k = copy(p, r.block[at:at+min(len(p), blockSize)])
	}
	r.off += int64(k)
	if r.off >= r.next {
		r.next += SampleEvery
		r.sample()
	}
	return k, nil
}

// Offset returns the number of bytes read so far.
func (r *Reader) Offset() int64 { return r.off }

// sample records the live heap after a full collection.
func (r *Reader) sample() {
	h := LiveHeap()
	r.mu.Lock()
	r.peak = max(r.peak, h)
	r.mu.Unlock()
}

// Peak returns the largest live heap sampled so far, in bytes; 0 before
// the first sample.
func (r *Reader) Peak() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.peak
}

// LiveHeap returns the live heap after a full collection, in bytes.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Gzip returns text compressed with gzip: a pattern of compressed junk,
// the bytes a server sends with an uninvited Content-Encoding.
func Gzip(text string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, text)
	_ = w.Close()
	return b.String()
}

// Shape is one adversarial input: a prefix, then a pattern repeated.
type Shape struct {
	// Name says what the input is.
	Name string
	// Prefix comes once, first; it may be empty.
	Prefix string
	// Pattern is repeated after Prefix; not empty.
	Pattern string
}

// SSEShapes are the adversarial shapes of an event stream: lines without
// a colon, no line ending at all, one giant data field, one giant field
// name, many tiny fields, comments, blank lines and data lines forever,
// and compressed junk.
func SSEShapes() []Shape {
	return []Shape{
		{Name: "no colons", Pattern: "x\n"},
		{Name: "no newlines", Pattern: "x"},
		{Name: "one giant field", Prefix: "data: ", Pattern: "x"},
		{Name: "one giant non-standard field", Prefix: "error: ", Pattern: "x"},
		{Name: "many tiny fields", Pattern: "a:\n"},
		{Name: "many data lines", Pattern: "data: " + strings.Repeat("x", 40) + "\n"},
		{Name: "many event types", Pattern: "event: " + strings.Repeat("x", 40) + "\n"},
		{Name: "comments forever", Pattern: ":\n"},
		{Name: "blank lines forever", Pattern: "\n"},
		{Name: "compressed junk", Pattern: Gzip(junk)},
	}
}

// JSONShapes are the adversarial shapes of a JSON message: deep nesting
// of arrays and objects, many keys, one giant string, many array items
// where the reader keeps them, and compressed junk.
func JSONShapes() []Shape {
	return []Shape{
		{Name: "deep arrays", Pattern: "["},
		{Name: "deep objects", Pattern: `{"a":`},
		{Name: "many keys", Prefix: "{", Pattern: `"a":1,`},
		{Name: "one giant string", Prefix: `{"choices":[{"delta":{"content":"`, Pattern: "x"},
		{Name: "many choices", Prefix: `{"choices":[`, Pattern: "{},"},
		{Name: "many tool calls", Prefix: `{"choices":[{"delta":{"tool_calls":[`, Pattern: "1,"},
		{Name: "compressed junk", Pattern: Gzip(junk)},
	}
}

// junk is compressed into the compressed-junk pattern.
const junk = `data: {"choices":[{"delta":{"content":"hello"}}]}` + "\n\n"
