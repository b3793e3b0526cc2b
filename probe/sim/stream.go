package sim

import (
	"net/http"
	"time"
)

// stream sends the answer as server-sent events, one token per event.
func (x *exchange) stream() {
	p := x.plan
	h := x.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	x.rec.Status = http.StatusOK
	x.w.WriteHeader(http.StatusOK)
	if !x.flush() {
		return
	}
	for i := 0; i <= p.n; i++ {
		if !x.waitFor(p.slot(i)) {
			return
		}
		if i == 0 && p.api == APIChat && !x.event(p.roleChunk(), false) {
			return
		}
		if i == p.faultAt && p.midStream() && x.strike() {
			return
		}
		if i < p.n && !x.event(p.tokenChunk(i), true) {
			return
		}
	}
	x.finish()
}

// finish sends the finish chunk, the usage chunk if asked for, and [DONE].
func (x *exchange) finish() {
	p := x.plan
	if !x.event(p.finishChunk(), false) {
		return
	}
	if p.req.includeUsage && !x.event(p.usageChunk(), false) {
		return
	}
	x.event([]byte("[DONE]"), false)
}

// strike injects the plan's mid-stream fault; true means the stream ends.
func (x *exchange) strike() bool {
	switch x.plan.fault {
	case FaultReset:
		x.reset()
	case FaultStall:
		x.stall()
	case FaultMalformed:
		return !x.event(x.plan.malformedChunk(), false)
	case FaultErrorEvent:
		x.event(errorEvent(), false)
	}
	return true
}

// event writes and flushes one "data: ...\n\n" event and, once that
// succeeded, logs the instant taken just before the write; false means the
// client is gone.
func (x *exchange) event(data []byte, token bool) bool {
	now := time.Now()
	buf := make([]byte, 0, len(data)+8)
	buf = append(buf, "data: "...)
	buf = append(append(buf, data...), "\n\n"...)
	if _, err := x.w.Write(buf); err != nil {
		x.rec.Canceled = true
		return false
	}
	if !x.flush() {
		return false
	}
	x.rec.ChunkSent = append(x.rec.ChunkSent, now)
	if token {
		x.rec.TokenSent = append(x.rec.TokenSent, now)
	}
	return true
}
