package sim

import (
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe/api"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// APIRealtime is the realtime WebSocket endpoint, GET /v1/realtime.
const APIRealtime = api.Realtime

// RealtimePath is the path of the realtime endpoint: the one the realtime
// backend asks for by default.
const RealtimePath = realtime.DefaultPath

// RealtimeConfig sets the behaviour of the realtime endpoint.
type RealtimeConfig struct {
	// DeltaLatency is the delay from the arrival of each audio chunk
	// (input_audio_buffer.append) to the transcription.delta that answers
	// it, drawn once per chunk; deltas are sent in the order of their
	// chunks. Chunks are read as they come, whatever the deltas still
	// unsent (up to 60000, 10 minutes of 10 ms chunks; beyond that a chunk
	// gets no delta).
	DeltaLatency Latency
	// Clock runs the delta delays; nil means clock.Real(). The log's
	// instants are read from time.Now whatever the clock.
	Clock clock.Clock
}

// upgrader accepts every origin: the sim serves loopback tests and demos.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// handleRealtime serves one realtime session: session.created, then one
// transcription.delta per audio chunk, each DeltaLatency after its chunk,
// and transcription.done once the final commit has arrived and every delta
// is sent. Faults: http_500, http_429 and html answer the handshake
// instead of upgrading; the mid-stream faults strike after the first delta.
func (s *Server) handleRealtime(w http.ResponseWriter, r *http.Request) {
	rec := &RequestLog{Received: time.Now(), API: APIRealtime, ID: s.newID(APIRealtime), Stream: true}
	defer func() { s.log.add(*rec) }()
	forced, force, err := headerFault(r.Header.Get(FaultHeader))
	if err != nil {
		rec.Status = http.StatusBadRequest
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	fault, rng := s.draw(forced, force)
	rec.Fault = fault
	if s.refuse(w, r, rec) || s.refuseHostile(w, r, rec) {
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		slog.Debug("sim could not upgrade", "id", rec.ID, "err", err)
		return
	}
	rec.Status = http.StatusSwitchingProtocols
	conn.SetReadLimit(maxBody)
	rt := &rtSession{s: s, conn: conn, rec: rec, rng: rng, queue: newRTQueue(), gone: make(chan struct{})}
	rt.serve()
}

// refuse answers the handshake without upgrading when the fault says so,
// or when the request is not an upgrade; it reports whether it answered.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, rec *RequestLog) bool {
	switch {
	case rec.Fault == FaultHTTP500:
		rec.Status = http.StatusInternalServerError
		writeError(w, rec.Status, "server_error", "simulated internal error")
	case rec.Fault == FaultHTTP429:
		rec.Status = http.StatusTooManyRequests
		w.Header().Set("Retry-After", "1")
		writeError(w, rec.Status, "rate_limit_error", "simulated rate limit")
	case rec.Fault == FaultHTML:
		rec.Status = http.StatusOK
		writeBody(w, rec.Status, "text/html; charset=utf-8", []byte(htmlPage))
	case !websocket.IsWebSocketUpgrade(r):
		rec.Status = http.StatusBadRequest
		writeError(w, rec.Status, "invalid_request_error", "expected a WebSocket upgrade")
	default:
		return false
	}
	rec.ChunkSent = append(rec.ChunkSent, time.Now())
	return true
}

// rtSession is one realtime connection being served. The reader goroutine
// queues the deltas, never waiting for the writer; the handler's goroutine
// writes them.
type rtSession struct {
	s     *Server
	conn  *websocket.Conn
	rec   *RequestLog
	rng   *rand.Rand
	queue *rtQueue
	gone  chan struct{} // closed when the reader has ended

	mu    sync.Mutex // guards rec.PromptTokens, written by the reader
	words []string
}

// serve runs the session until the transcript is done, a fault ends it, the
// client goes away or the server closes.
func (rt *rtSession) serve() {
	var wg sync.WaitGroup
	defer func() {
		rt.queue.close()
		_ = rt.conn.Close()
		wg.Wait()
	}()
	if !rt.send(map[string]any{"type": realtime.EventSessionCreated, "id": rt.rec.ID, "created": time.Now().Unix()}, false) {
		return
	}
	wg.Go(rt.read)
	if rt.rec.Fault == FaultJunkLines {
		rt.junk()
		return
	}
	for {
		it, ok := rt.queue.pop()
		if !ok {
			select {
			case <-rt.queue.wake:
				continue
			case <-rt.gone:
			case <-rt.s.done:
			}
			rt.rec.Canceled = true
			return
		}
		if !rt.deliver(it) {
			return
		}
	}
}

// deliver sends one queued item; false ends the session.
func (rt *rtSession) deliver(it rtItem) bool {
	if it.timer == nil {
		rt.done()
		return false
	}
	select {
	case <-it.timer.C():
	case <-rt.gone:
		rt.rec.Canceled = true
		return false
	case <-rt.s.done:
		rt.rec.Canceled = true
		return false
	}
	rt.words = append(rt.words, it.word)
	if !rt.send(map[string]any{"type": realtime.EventDelta, "delta": it.word}, true) {
		return false
	}
	if len(rt.rec.TokenSent) == 1 && rt.rec.Fault != "" {
		return rt.strike()
	}
	return true
}

// strike injects the session's mid-stream fault; false ends the session.
func (rt *rtSession) strike() bool {
	switch rt.rec.Fault {
	case FaultReset:
		setLingerZero(rt.conn.NetConn())
		return false
	case FaultStall:
		select {
		case <-rt.gone:
		case <-rt.s.done:
		}
		rt.rec.Canceled = true
		return false
	case FaultMalformed:
		return rt.write([]byte(`{"type": "transcription.delta", "delta": `), false)
	case FaultErrorEvent:
		return rt.send(map[string]any{"type": realtime.EventError, "error": "simulated error"}, false)
	case FaultTruncated:
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		if rt.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second)) == nil {
			rt.rec.ChunkSent = append(rt.rec.ChunkSent, time.Now())
		}
		rt.lingerClose()
		return false
	}
	return true
}

// closeLinger bounds the wait for the client to go after a close frame.
const closeLinger = 5 * time.Second

// lingerClose waits, after a close frame, until the client has closed its
// side (or the server closes, or closeLinger passes), so that closing the
// connection with audio still unread cannot reset it before the client has
// read the close frame.
func (rt *rtSession) lingerClose() {
	t := time.NewTimer(closeLinger)
	defer t.Stop()
	select {
	case <-rt.gone:
	case <-rt.s.done:
	case <-t.C:
	}
}

// done sends the final transcript with its usage.
func (rt *rtSession) done() {
	rt.mu.Lock()
	prompt := rt.rec.PromptTokens
	rt.mu.Unlock()
	n := len(rt.words)
	rt.send(map[string]any{
		"type": realtime.EventDone, "text": strings.TrimSpace(strings.Join(rt.words, "")),
		"usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n},
	}, false)
	rt.rec.OutputTokens = n
}

// send writes ev as JSON; token says it is a delta. False means the client is gone.
func (rt *rtSession) send(ev any, token bool) bool {
	b, err := json.Marshal(ev)
	if err != nil {
		panic("sim could not marshal an event: " + err.Error()) // maps of strings and ints always marshal
	}
	return rt.write(b, token)
}

// write sends one text message and logs the instant taken before the write.
func (rt *rtSession) write(b []byte, token bool) bool {
	now := time.Now()
	if err := rt.conn.WriteMessage(websocket.TextMessage, b); err != nil {
		rt.rec.Canceled = true
		return false
	}
	rt.rec.ChunkSent = append(rt.rec.ChunkSent, now)
	if token {
		rt.rec.TokenSent = append(rt.rec.TokenSent, now)
	}
	return true
}
