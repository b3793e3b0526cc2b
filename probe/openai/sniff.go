package openai

import (
	"bufio"
	"bytes"
	"io"

	"github.com/llmprober/llmprober/probe"
)

// bodyStart is what the start of a streamed response's body looks like.
type bodyStart int

const (
	// bodyMore: not known yet (only white space so far, or the start of an SSE field name).
	bodyMore bodyStart = iota
	// bodyJSON: a JSON object or array, a whole response.
	bodyJSON
	// bodySSE: an SSE comment or one of the fields servers send.
	bodySSE
	// bodyOther: anything else (HTML, text), or nothing at all.
	bodyOther
)

// bom is the UTF-8 byte order mark.
var bom = []byte("\xef\xbb\xbf")

// sniffBytes bounds how far sniff looks into a body.
const sniffBytes = 1024

// sseStarts are the line starts of an SSE body: a comment, or a field
// that servers send (llama.cpp's error field among them).
var sseStarts = [][]byte{[]byte(":"), []byte("data:"), []byte("event:"), []byte("id:"), []byte("retry:"), []byte("error:")}

// sniff tells what r's body begins with, past a byte order mark and white
// space, without consuming any of it: it waits for as many bytes as it
// needs (at most sniffBytes), and a read error ends the wait (the error
// itself is left to the reader of the body).
func sniff(r *bufio.Reader) bodyStart {
	for n := 1; n <= sniffBytes; n++ {
		b, err := r.Peek(n)
		k := startOf(bytes.TrimLeft(probe.TrimBOM(b), " \t\r\n"))
		if len(b) < len(bom) && bytes.HasPrefix(bom, b) {
			k = bodyMore // perhaps a byte order mark, cut short
		}
		switch {
		case k != bodyMore:
			return k
		case err != nil:
			return bodyOther
		}
	}
	return bodyOther
}

// startOf tells what a body beginning with b (white space trimmed) is.
func startOf(b []byte) bodyStart {
	switch {
	case len(b) == 0:
		return bodyMore
	case b[0] == '{' || b[0] == '[':
		return bodyJSON
	}
	more := false
	for _, s := range sseStarts {
		if bytes.HasPrefix(b, s) {
			return bodySSE
		}
		more = more || bytes.HasPrefix(s, b)
	}
	if more {
		return bodyMore
	}
	return bodyOther
}

// ignoredStream is the failure of a whole JSON response to a streamed
// request: the server ignored "stream": true. When the response reports an
// error (read as a whole response's would be, up to drainBytes), its
// message and code are kept.
func (b *Backend) ignoredStream(body io.Reader) error {
	data, cut := readLimited(body)
	if cut {
		data = []byte(b.redact.Cut(string(data)))
	}
	data = probe.TrimBOM(data)
	var e probe.ServerError
	if c, err := decodeChunk(data); err == nil {
		e = c.err
	}
	return serverFailure(probe.ErrorProtocol, "server ignored stream: true: the body is JSON, not SSE", e)
}
