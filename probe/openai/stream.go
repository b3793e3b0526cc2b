package openai

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/sse"
)

// readStream reads a streamed response event by event as it arrives,
// timing every chunk. It ends successfully at "data: [DONE]", or at a clean
// end of the body after a finish reason.
func (b *Backend) readStream(resp *http.Response, x *exchange) error {
	x.tok.counted = true
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/event-stream" {
		msg := bodyMessage(readLimited(resp.Body))
		return probe.Failf(probe.ErrorProtocol, "unexpected content type %q for a stream: %s", ct, msg)
	}
	s := stream{rec: x.rec, tok: &x.tok}
	r := sse.NewReader(resp.Body, b.cfg.MaxEventBytes)
	for {
		ev, err := r.Next()
		switch {
		case errors.Is(err, io.EOF) && s.finished:
			return nil
		case errors.Is(err, io.EOF):
			return probe.Failf(probe.ErrorProtocol, "stream ended early: no [DONE] and no finish_reason")
		case errors.Is(err, sse.ErrEventTooLarge):
			return probe.Failf(probe.ErrorProtocol, "%v", err)
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

// stream is the state of one stream being read.
type stream struct {
	rec      *probe.Record
	tok      *tokens
	finished bool // a finish reason was seen
}

// event handles one event that arrived at now; it reports done at [DONE].
func (s *stream) event(ev sse.Event, now time.Time) (done bool, err error) {
	switch ev.Type {
	case "error":
		if m := bodyMessage([]byte(ev.Data)); m != "" {
			return false, probe.Failf(probe.ErrorStream, "stream error: %s", m)
		}
		return false, probe.Failf(probe.ErrorStream, "stream error event")
	case "", "message":
	default:
		return false, nil
	}
	if strings.TrimSpace(ev.Data) == "[DONE]" {
		return true, nil
	}
	rec := s.rec
	rec.AddChunk(now)
	var c chunk
	if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
		return false, probe.Failf(probe.ErrorProtocol, "malformed stream chunk: %v", err)
	}
	if m := errorMessage(c.Error); m != "" {
		return false, probe.Failf(probe.ErrorStream, "stream error: %s", m)
	}
	s.tok.add(c.Usage)
	s.finished = s.finished || c.finished()
	token, visible := c.kinds()
	if token {
		rec.Iterations++
		rec.LastToken = now
		if rec.FirstToken.IsZero() {
			rec.FirstToken = now
		}
	}
	if visible && rec.FirstOutputToken.IsZero() {
		rec.FirstOutputToken = now
	}
	return false, nil
}
