package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"testing/iotest"
)

// splitReader returns its data in pieces ending at the given offsets, one
// piece per Read, then the rest.
type splitReader struct {
	data []byte
	cuts []int
	off  int
}

func (s *splitReader) Read(p []byte) (int, error) {
	if s.off >= len(s.data) {
		return 0, io.EOF
	}
	end := len(s.data)
	for len(s.cuts) > 0 {
		if c := s.cuts[0]; c > s.off {
			end = min(c, end)
			break
		}
		s.cuts = s.cuts[1:]
	}
	n := copy(p, s.data[s.off:end])
	s.off += n
	return n, nil
}

// chunkReader returns its data in pieces of at most size bytes.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.data[:min(c.size, len(c.data))])
	c.data = c.data[n:]
	return n, nil
}

// readerCase is one way of delivering an input.
type readerCase struct {
	name string
	r    io.Reader
}

// deliveries returns every way the tests deliver input: whole, one byte at
// a time, with the data and EOF together, in fixed-size chunks of 1..8
// bytes, and split in two at every byte offset.
func deliveries(input []byte) []readerCase {
	cases := []readerCase{
		{"whole", bytes.NewReader(input)},
		{"one byte", iotest.OneByteReader(bytes.NewReader(input))},
		{"data with EOF", iotest.DataErrReader(bytes.NewReader(input))},
		{"half reads", iotest.HalfReader(bytes.NewReader(input))},
	}
	for size := 1; size <= 8; size++ {
		cases = append(cases, readerCase{"chunks of " + strconv.Itoa(size), &chunkReader{data: input, size: size}})
	}
	for k := 1; k < len(input); k++ {
		cases = append(cases, readerCase{"split at " + strconv.Itoa(k), &splitReader{data: input, cuts: []int{k}}})
	}
	return cases
}

// readAll reads events until an error, which it returns (io.EOF at a clean end).
func readAll(r *Reader) ([]Event, error) {
	var evs []Event
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
		if len(evs) > 1<<16 {
			return evs, errors.New("too many events")
		}
	}
}

func TestSplitReader(t *testing.T) {
	// The helper itself: cuts at 2 and 5 of "abcdefg" give "ab", "cde", "fg".
	r := &splitReader{data: []byte("abcdefg"), cuts: []int{2, 5}}
	var got []string
	p := make([]byte, 16)
	for {
		n, err := r.Read(p)
		if err != nil {
			break
		}
		got = append(got, string(p[:n]))
	}
	want := []string{"ab", "cde", "fg"}
	if len(got) != len(want) {
		t.Fatalf("pieces = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("pieces = %q, want %q", got, want)
		}
	}
}
