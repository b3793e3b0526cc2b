package realtime

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// closeWait bounds the wait for the close frame sent after a successful request.
const closeWait = time.Second

// session is one request's connection and what it measured so far. The
// writer sets rec.Sent and committed, the reader every other field; the
// reader only reads committed, which is atomic.
type session struct {
	b         *Backend
	rec       *probe.Record
	conn      *websocket.Conn
	usage     probe.Usage
	unknown   int
	events    int         // server messages read
	bytes     int64       // bytes of the server messages read
	committed atomic.Bool // set just before the final commit is sent
}

// Client events as sent.
type (
	sessionUpdate struct {
		Type  string `json:"type"`
		Model string `json:"model,omitempty"`
	}
	appendEvent struct {
		Type  string `json:"type"`
		Audio string `json:"audio"`
	}
	commitEvent struct {
		Type  string `json:"type"`
		Final bool   `json:"final"`
	}
)

// serverEvent holds the fields of every server event llmprober reads, and
// the message itself (raw), whose error reports are read whole.
type serverEvent struct {
	Type       string          `json:"type"`
	Delta      probe.Text      `json:"delta"`
	Text       probe.Text      `json:"text"`
	Transcript probe.Text      `json:"transcript"`
	Usage      json.RawMessage `json:"usage"`
	Error      json.RawMessage `json:"error"`
	raw        []byte
}

// failed reports whether the event reports an error: an error event, or
// an event of any other type with an "error" member that is set
// (probe.Truthy; null, false, 0, "", [] and {} are not).
func (ev *serverEvent) failed() bool { return errorEvents[ev.Type] || probe.Truthy(ev.Error) }

// usage is the usage report of a done event, in vLLM's spelling (prompt,
// completion) or OpenAI's (input, output); OpenAI's wins where both are given.
type usage struct {
	PromptTokens     probe.TokenCount `json:"prompt_tokens"`
	CompletionTokens probe.TokenCount `json:"completion_tokens"`
	InputTokens      probe.TokenCount `json:"input_tokens"`
	OutputTokens     probe.TokenCount `json:"output_tokens"`
}

// report passes the event's usage report, if any, to u.
func (ev *serverEvent) report(u *probe.Usage) {
	if len(ev.Usage) == 0 || string(ev.Usage) == "null" {
		return
	}
	var r usage
	if json.Unmarshal(ev.Usage, &r) != nil {
		u.Malformed()
		return
	}
	u.Report(either(r.InputTokens, r.PromptTokens), either(r.OutputTokens, r.CompletionTokens))
}

// either returns a unless it is absent, else b.
func either(a, b probe.TokenCount) probe.TokenCount {
	if a.State != probe.CountAbsent {
		return a
	}
	return b
}

// open waits for the session to be created, then configures it and starts
// transcribing.
func (s *session) open() error {
	for {
		ev, err := s.next()
		if err != nil {
			return err
		}
		switch {
		case ev.failed():
			return errorEvent(ev)
		case createdEvents[ev.Type]:
			return s.sendAll(sessionUpdate{Type: EventSessionUpdate, Model: s.b.cfg.Model},
				commitEvent{Type: EventCommit})
		case !ignoredEvents[ev.Type]:
			if err := s.unknownEvent(ev.Type); err != nil {
				return err
			}
		}
	}
}

// sendAll writes each event in turn.
func (s *session) sendAll(evs ...any) error {
	for _, ev := range evs {
		if err := s.conn.WriteJSON(ev); err != nil {
			return fmt.Errorf("could not send an event: %w", err)
		}
	}
	return nil
}

// write sends the audio chunks, paced, then the final commit. It stops
// early, without error, when the reader has ended. In real-time pacing
// chunk i is due at i × ChunkDuration after the first was sent; each wait
// is measured from the previous send's reading of the clock, so lateness
// never accumulates.
func (s *session) write(rctx context.Context, readerDone <-chan struct{}) error {
	clk := s.b.cfg.Clock
	var first, last time.Time
	for i, chunk := range s.b.chunks {
		if i > 0 && s.b.cfg.Pacing == PacingRealtime {
			due := first.Add(time.Duration(i) * s.b.cfg.ChunkDuration)
			if stopped := wait(rctx, clk.NewTimer(due.Sub(last)), readerDone); stopped {
				return nil
			}
		}
		ev := appendEvent{Type: EventAppend, Audio: base64.StdEncoding.EncodeToString(chunk)}
		last = clk.Now()
		if i == 0 {
			first = last
		}
		if err := s.conn.WriteJSON(ev); err != nil {
			return fmt.Errorf("could not send audio: %w", err)
		}
		s.rec.Sent.Add(last)
	}
	s.committed.Store(true)
	return s.sendAll(commitEvent{Type: EventCommit, Final: true})
}

// wait waits for t; stopped is true when the request or the reader ended first.
func wait(rctx context.Context, t clock.Timer, readerDone <-chan struct{}) (stopped bool) {
	defer t.Stop()
	select {
	case <-t.C():
		return false
	case <-rctx.Done():
	case <-readerDone:
	}
	return true
}

// read reads server events until transcription.done (nil) or a failure.
func (s *session) read() error {
	for {
		ev, err := s.next()
		if err != nil {
			return err
		}
		now := s.b.cfg.Clock.Now()
		if done, err := s.event(ev, now); done || err != nil {
			return err
		}
	}
}

// next reads and decodes one server event. At most MaxEvents messages of
// MaxBytes bytes together are read per request.
func (s *session) next() (serverEvent, error) {
	mt, data, err := s.conn.ReadMessage()
	if err != nil {
		return serverEvent{}, readError(err, s.b.cfg.MaxMessageBytes)
	}
	s.events++
	s.bytes += int64(len(data))
	switch {
	case s.events > s.b.cfg.MaxEvents:
		return serverEvent{}, probe.Failf(probe.ErrorProtocol, "more than %d server events in one request", s.b.cfg.MaxEvents)
	case s.bytes > s.b.cfg.MaxBytes:
		return serverEvent{}, probe.Failf(probe.ErrorProtocol, "server events longer than %d bytes together in one request", s.b.cfg.MaxBytes)
	}
	return decode(mt, data)
}

// decode parses one server message of WebSocket message type mt: by a
// walk of its tokens (walkEvent), else, when the walk cannot be sure of
// it, by encoding/json, whose error stands.
func decode(mt int, data []byte) (serverEvent, error) {
	var ev serverEvent
	if mt != websocket.TextMessage {
		return ev, probe.Failf(probe.ErrorProtocol, "unexpected binary message of %d bytes", len(data))
	}
	data = probe.TrimBOM(data)
	if !walkEvent(data, &ev) {
		var whole serverEvent // apart from ev, which then stays on the stack
		if err := json.Unmarshal(data, &whole); err != nil {
			return whole, probe.Failf(probe.ErrorProtocol, "malformed event: %v", err)
		}
		ev = whole
	}
	if ev.Type == "" {
		return ev, probe.Failf(probe.ErrorProtocol, "malformed event: no type")
	}
	ev.raw = data
	return ev, nil
}

// event handles one event that arrived at now; done is true at the final transcript.
func (s *session) event(ev serverEvent, now time.Time) (done bool, err error) {
	switch {
	case ev.failed():
		return false, errorEvent(ev)
	case deltaEvents[ev.Type]:
		s.chunk(now)
		if ev.Delta {
			s.token(now)
		}
	case doneEvents[ev.Type]:
		if !s.committed.Load() {
			return false, probe.Failf(probe.ErrorProtocol, "transcription done before the input was committed (%s before the final commit)", ev.Type)
		}
		s.chunk(now)
		if s.rec.Iterations == 0 && bool(ev.Text || ev.Transcript) {
			s.token(now) // the whole transcript at once, without deltas
		}
		ev.report(&s.usage)
		s.rec.End = now
		return true, nil
	case ignoredEvents[ev.Type], createdEvents[ev.Type]:
	default:
		return false, s.unknownEvent(ev.Type)
	}
	return false, nil
}

// chunk records a transcript event's arrival.
func (s *session) chunk(now time.Time) { s.rec.AddChunk(now) }

// token records a token event (a non-empty delta) that arrived at now.
func (s *session) token(now time.Time) {
	rec := s.rec
	rec.Iterations++
	rec.OutputSeen = true
	rec.Received.Add(now)
	rec.LastToken = now
	if rec.FirstToken.IsZero() {
		rec.FirstToken, rec.FirstOutputToken = now, now
	}
}

// unknownEvent counts an event of unknown type; past the bound it fails.
func (s *session) unknownEvent(typ string) error {
	s.unknown++
	if s.unknown > s.b.cfg.MaxUnknownEvents {
		return probe.Failf(probe.ErrorProtocol, "more than %d events of unknown types (the last %q)", s.b.cfg.MaxUnknownEvents, typ)
	}
	return nil
}

// errorEvent returns the failure of an event that reports an error:
// "server error event", for OpenAI's failed transcription "transcription
// failed", for another event with an error member "<type> event with an
// error", then the error's message when it has one; the error's code is
// kept (vLLM puts it beside the error string, OpenAI inside the error
// object).
func errorEvent(ev serverEvent) error {
	what := "server error event"
	switch {
	case ev.Type == EventOpenAIFailed:
		what = "transcription failed"
	case !errorEvents[ev.Type]:
		what = ev.Type + " event with an error"
	}
	var report struct {
		Code json.RawMessage `json:"code"`
	}
	_ = json.Unmarshal(ev.raw, &report)
	var e probe.ServerError
	if probe.Truthy(ev.Error) {
		e = probe.ParseServerError(ev.Error)
	}
	if e.Code.Kind == probe.CodeNone {
		e.Code = probe.ErrorCodeOf(report.Code)
	}
	f := &probe.Failure{Type: probe.ErrorStream, Msg: what, Code: e.Code}
	if e.Message != "" {
		f.Msg = what + ": " + e.Message
	}
	return f
}

// close says goodbye after a successful request.
func (s *session) close() {
	msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
	_ = s.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeWait))
}

// isTyped reports whether err is a failure whose type is known.
func isTyped(err error) bool {
	var f *probe.Failure
	return errors.As(err, &f)
}
