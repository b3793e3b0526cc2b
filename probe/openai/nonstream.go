package openai

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/llmprober/llmprober/probe"
)

// readBody reads and decodes a whole (non-streamed) response. Only the token
// counts are taken from it: without a stream there is no first token. A
// body that is not JSON but begins like SSE says so: the server streamed
// although stream was false.
func (b *Backend) readBody(resp *http.Response, x *exchange) error {
	r := bodyReaders.Get().(*bodyReader)
	defer r.put()
	data, err := r.read(resp.Body, b.cfg.MaxBodyBytes+1)
	if err != nil {
		return fmt.Errorf("could not read response: %w", err)
	}
	x.rec.End = b.cfg.Clock.Now()
	if int64(len(data)) > b.cfg.MaxBodyBytes {
		return probe.Failf(probe.ErrorProtocol, "response body larger than %d bytes", b.cfg.MaxBodyBytes)
	}
	data = probe.TrimBOM(data)
	c, err := decodeChunk(data)
	if err != nil {
		if startOf(bytes.TrimLeft(data, " \t\r\n")) == bodySSE {
			return probe.Failf(probe.ErrorProtocol, "server ignored stream: false: the body is SSE, not JSON")
		}
		return serverFailure(probe.ErrorProtocol, fmt.Sprintf("could not decode response: %v", err), probe.ParseServerError(data))
	}
	if c.failed {
		return serverFailure(probe.ErrorProtocol, "error in response", c.err)
	}
	if c.choices == 0 {
		return probe.Failf(probe.ErrorProtocol, "response has no choices")
	}
	x.rec.OutputSeen = c.token
	c.usage.apply(&x.usage)
	return nil
}

// bodyReader reads whole responses into a buffer that is reused: nothing
// of a response is kept once it has been decoded (the failures and
// ServerError it makes copy what they keep).
type bodyReader struct {
	buf []byte
}

// bodyReaders holds bodyReaders for reuse.
var bodyReaders = sync.Pool{New: func() any { return new(bodyReader) }}

// maxPooledBody bounds the buffer kept for reuse, in bytes: a larger
// response's buffer is left to the collector.
const maxPooledBody = 64 << 10

// minBodyBuffer is the capacity of a new buffer, in bytes.
const minBodyBuffer = 512

// read reads body, at most limit bytes of it; data is valid until the next
// read or put. The buffer doubles as it fills, and takes limit itself once
// doubling again would pass it, so that a body at the limit holds limit
// bytes, and about 1.5 times limit while it copies (a bytes.Buffer would
// double past limit: twice limit held, three times while it copies).
func (r *bodyReader) read(body io.Reader, limit int64) (data []byte, err error) {
	buf := r.buf[:0]
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			n := int64(max(2*cap(buf), minBodyBuffer))
			if 2*n > limit {
				// The next doubling would pass limit: take limit now
				// rather than fill n and copy once more.
				n = limit
			}
			nb := make([]byte, len(buf), n)
			copy(nb, buf)
			buf = nb
		}
		var m int
		m, err = body.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+m]
		if err != nil {
			break
		}
	}
	r.buf = buf
	if err == io.EOF {
		err = nil
	}
	return buf, err
}

// put returns r to the pool, unless its buffer has grown past maxPooledBody.
func (r *bodyReader) put() {
	if cap(r.buf) <= maxPooledBody {
		r.buf = r.buf[:0]
		bodyReaders.Put(r)
	}
}
