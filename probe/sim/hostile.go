package sim

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"sync"

	"github.com/gorilla/websocket"
)

// The hostile faults: answers that never end by themselves, each a shape of
// input a client must bound. Only the X-Sim-Fault header chooses them (never
// Config.Faults, so random faults stay honest failures), and each answer
// stops when the client goes away, the server closes, or maxHostileBytes
// have been written.
const (
	// FaultJunkLines answers 200 with endless lines that have no colon:
	// "x\n" forever as text/event-stream when streamed, and an endless
	// run of "[" (JSON nested ever deeper) as application/json when not.
	FaultJunkLines Fault = "junk_lines"
	// FaultGzip answers 200 with "Content-Encoding: gzip", which the client
	// did not ask for, and an endless gzip stream of zeros (about a
	// thousand bytes decompressed per byte sent).
	FaultGzip Fault = "gzip"
	// FaultEndlessHeader answers "HTTP/1.1 200 OK" followed by header lines
	// that never end, on a connection taken over from the HTTP server (an
	// HTTP/2 request is aborted instead).
	FaultEndlessHeader Fault = "endless_header"
)

// hostileOrder lists the hostile faults.
var hostileOrder = []Fault{FaultJunkLines, FaultGzip, FaultEndlessHeader}

// HostileFaults returns the faults that only the X-Sim-Fault header chooses.
func HostileFaults() []Fault {
	return append([]Fault(nil), hostileOrder...)
}

// maxHostileBytes bounds what one hostile answer writes, so that it stops
// by itself even against a client that reads for ever: 1 GiB.
const maxHostileBytes = 1 << 30

// hostileChunk is the size of one write of a hostile answer, in bytes.
const hostileChunk = 32 << 10

// hostile answers with the plan's hostile fault; false means the fault is
// not one.
func (x *exchange) hostile() bool {
	h := hostileAnswer{w: x.w, rc: x.rc, over: x.over, rec: x.rec}
	return h.answer(x.plan.fault, x.plan.req.stream)
}

// answer writes fault's answer, streamed or whole; false means the fault
// is not a hostile one.
func (x hostileAnswer) answer(fault Fault, stream bool) bool {
	switch fault {
	case FaultJunkLines:
		if stream {
			x.endless("text/event-stream", "", nil, bytes.Repeat([]byte("x\n"), hostileChunk/2))
		} else {
			x.endless("application/json", "", nil, bytes.Repeat([]byte("["), hostileChunk))
		}
	case FaultGzip:
		start, again := gzipZeros()
		x.endless("application/json", "gzip", start, again)
	case FaultEndlessHeader:
		x.endlessHeader()
	default:
		return false
	}
	return true
}

// hostileAnswer writes one hostile answer.
type hostileAnswer struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	over func() bool // the client went away or the server closed
	rec  *RequestLog
}

// gzipZeros returns the start of an endless gzip stream of zeros and a
// piece that continues it as often as it is repeated: once a window of
// zeros is behind it, each flushed MiB of zeros compresses to the same
// bytes (1037 at the best compression), so the answer costs the server
// nothing and decompresses about a thousand to one.
var gzipZeros = sync.OnceValues(func() (start, again []byte) {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	var last []byte
	for {
		n := b.Len()
		_, _ = zw.Write(zeros)
		_ = zw.Flush()
		piece := b.Bytes()[n:]
		if bytes.Equal(piece, last) {
			return b.Bytes()[:n], bytes.Repeat(piece, hostileChunk/len(piece))
		}
		last = append(last[:0], piece...)
	}
})

// endless answers 200 with the given type and encoding, then writes first
// and chunk after chunk until the client goes away, the server closes or
// the bound is reached.
func (x hostileAnswer) endless(contentType, encoding string, first, chunk []byte) {
	h := x.w.Header()
	h.Set("Content-Type", contentType)
	if encoding != "" {
		h.Set("Content-Encoding", encoding)
	}
	x.rec.Status = http.StatusOK
	x.w.WriteHeader(http.StatusOK)
	if _, err := x.w.Write(first); err != nil {
		x.rec.Canceled = true
		return
	}
	for sent := 0; sent < maxHostileBytes && !x.over(); sent += len(chunk) {
		if _, err := x.w.Write(chunk); err != nil || x.rc.Flush() != nil {
			x.rec.Canceled = true
			return
		}
	}
}

// endlessHeader takes the connection over and writes a status line and
// header lines until the client goes away or the bound is reached.
func (x hostileAnswer) endlessHeader() {
	conn, buf, err := x.rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	defer func() { _ = conn.Close() }()
	x.rec.Status = http.StatusOK
	line := []byte("X-Sim-Junk: " + string(bytes.Repeat([]byte("y"), 1000)) + "\r\n")
	if _, err := buf.WriteString("HTTP/1.1 200 OK\r\n"); err != nil {
		return
	}
	for sent := 0; sent < maxHostileBytes && !x.over(); sent += len(line) {
		if _, err := buf.Write(line); err != nil {
			x.rec.Canceled = true
			return
		}
		if buf.Writer.Buffered() > hostileChunk-len(line) {
			if err := buf.Flush(); err != nil {
				x.rec.Canceled = true
				return
			}
		}
	}
}

// refuseHostile answers a realtime handshake with the gzip or
// endless_header fault instead of upgrading; it reports whether it did.
func (s *Server) refuseHostile(w http.ResponseWriter, r *http.Request, rec *RequestLog) bool {
	over := func() bool {
		select {
		case <-r.Context().Done():
		case <-s.done:
		default:
			return false
		}
		return true
	}
	if rec.Fault == FaultJunkLines { // the session sends it
		return false
	}
	h := hostileAnswer{w: w, rc: http.NewResponseController(w), over: over, rec: rec}
	return h.answer(rec.Fault, false)
}

// junk sends server messages of a type no client knows, each about 1 KiB,
// until the client goes away, the server closes or the bound is reached:
// the realtime form of junk_lines.
func (rt *rtSession) junk() {
	msg := []byte(`{"type":"sim.junk","pad":"` + string(bytes.Repeat([]byte("z"), 1000)) + `"}`)
	for sent := 0; sent < maxHostileBytes; sent += len(msg) {
		select {
		case <-rt.gone:
			rt.rec.Canceled = true
			return
		case <-rt.s.done:
			return
		default:
		}
		if err := rt.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
			rt.rec.Canceled = true
			return
		}
	}
}
