package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/sse"
)

// readStream reads a streamed response event by event as it arrives,
// timing every chunk. It ends successfully at "data: [DONE]", or at a clean
// end of the body after a finish reason. At most MaxStreamBytes of the
// body and MaxEvents events are read. The body is read as SSE when its
// Content-Type is text/event-stream, or when it begins like SSE whatever
// its type (or none); a body that begins like JSON is a whole response to
// the streamed request (see sniff).
func (b *Backend) readStream(resp *http.Response, x *exchange) error {
	x.usage.Streamed()
	body := bufio.NewReader(&limitedBody{r: resp.Body, left: b.cfg.MaxStreamBytes})
	ct := resp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	switch k := sniff(body); {
	case k == bodyJSON:
		return b.ignoredStream(body)
	case mt == "text/event-stream", k == bodySSE:
	case ct == "":
		return serverFailure(probe.ErrorProtocol, "stream body is not SSE (no Content-Type)", b.bodyError(body))
	default:
		return serverFailure(probe.ErrorProtocol, fmt.Sprintf("unexpected content type %q for a stream", ct), b.bodyError(body))
	}
	s := stream{rec: x.rec, usage: &x.usage, maxEvents: b.cfg.MaxEvents}
	r := sse.NewReader(body, b.cfg.MaxEventBytes)
	for {
		ev, err := r.NextRaw()
		switch {
		case errors.Is(err, io.EOF) && s.finished:
			return nil
		case errors.Is(err, io.EOF):
			return probe.Failf(probe.ErrorProtocol, "stream ended early: no [DONE] and no finish_reason")
		case errors.Is(err, sse.ErrEventTooLarge):
			return probe.Failf(probe.ErrorProtocol, "%v", err)
		case errors.Is(err, errStreamTooLarge):
			return probe.Failf(probe.ErrorProtocol, "stream longer than %d bytes: the response is cut off there", b.cfg.MaxStreamBytes)
		case err != nil:
			return err
		}
		now := b.cfg.Clock.Now()
		done, err := s.event(ev, now)
		if err != nil {
			return err
		}
		if done {
			x.rec.End = now
			drain(resp.Body)
			return nil
		}
	}
}

// errStreamTooLarge is the read error of a body past its size limit.
var errStreamTooLarge = errors.New("stream too large")

// limitedBody reads r until left bytes have been read, then fails with
// errStreamTooLarge if r has more.
type limitedBody struct {
	r    io.Reader
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			return 0, errStreamTooLarge
		}
		return 0, err
	}
	n, err := l.r.Read(p[:min(int64(len(p)), l.left)])
	l.left -= int64(n)
	return n, err
}

// stream is the state of one stream being read.
type stream struct {
	rec       *probe.Record
	usage     *probe.Usage
	events    int
	maxEvents int
	finished  bool // a finish reason was seen
}

// event handles one event that arrived at now; it reports done at [DONE].
// An "error" field (llama.cpp) that is set (errorFieldSet) or an event of
// type error is a stream error; events of other types are ignored; a
// message whose data is empty or itself a comment is a heartbeat, skipped.
func (s *stream) event(ev sse.RawEvent, now time.Time) (done bool, err error) {
	if s.events++; s.events > s.maxEvents {
		return false, probe.Failf(probe.ErrorProtocol, "more than %d events in one stream", s.maxEvents)
	}
	if v, ok := ev.Lookup("error"); ok && errorFieldSet(v) {
		return false, streamError(probe.ParseServerError([]byte(v)))
	}
	switch ev.Type {
	case "error":
		return false, streamError(probe.ParseServerError(ev.Data))
	case "", "message":
	default:
		return false, nil
	}
	payload := bytes.TrimSpace(ev.Data)
	switch {
	case len(payload) == 0 || payload[0] == ':':
		return false, nil
	case string(payload) == "[DONE]":
		return true, nil
	}
	return false, s.chunk(probe.TrimBOM(ev.Data), now)
}

// errorFieldSet reports whether an SSE "error" field reports an error, by
// the rule of a JSON error member (probe.Truthy): JSON null, false, 0, "",
// [] and {} and an empty field do not; any other JSON value and any text
// that is not JSON do.
func errorFieldSet(v string) bool {
	raw := bytes.TrimSpace(probe.TrimBOM([]byte(v)))
	if !json.Valid(raw) {
		return len(raw) > 0
	}
	return probe.Truthy(raw)
}

// chunk handles one data chunk that arrived at now.
func (s *stream) chunk(data []byte, now time.Time) error {
	rec := s.rec
	rec.AddChunk(now)
	c, err := decodeChunk(data)
	if err != nil {
		return probe.Failf(probe.ErrorProtocol, "malformed stream chunk: %v", err)
	}
	if c.failed {
		return streamError(c.err)
	}
	c.usage.apply(s.usage)
	s.finished = s.finished || c.finished
	if c.token {
		rec.Iterations++
		rec.OutputSeen = true
		rec.LastToken = now
		if rec.FirstToken.IsZero() {
			rec.FirstToken = now
		}
	}
	if c.visible && rec.FirstOutputToken.IsZero() {
		rec.FirstOutputToken = now
	}
	return nil
}

// streamError is the failure of an error the server reported in the
// stream: "stream error: <message>", or "stream error event" without one.
func streamError(e probe.ServerError) error {
	if e.Message == "" {
		return serverFailure(probe.ErrorStream, "stream error event", e)
	}
	return serverFailure(probe.ErrorStream, "stream error", e)
}
