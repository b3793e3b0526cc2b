package sim

import (
	"net/http"
	"strconv"
	"time"
)

// unary sends the whole answer as one JSON body after the last token's time.
func (x *exchange) unary() {
	p := x.plan
	switch p.fault {
	case FaultReset:
		if x.waitFor(p.slot(p.faultAt)) {
			x.reset()
		}
		return
	case FaultStall:
		x.stall()
		return
	}
	if !x.waitFor(p.last()) {
		return
	}
	switch p.fault {
	case FaultMalformed:
		body := p.whole()
		x.writeWhole(http.StatusOK, "application/json", body[:len(body)/2])
	case FaultErrorEvent:
		x.writeWhole(http.StatusOK, "application/json", errorEvent())
	case FaultTruncated:
		x.truncated(p.whole())
	default:
		x.writeWhole(http.StatusOK, "application/json", p.whole())
	}
}

// truncated declares body's full length, sends half of it and returns, so
// the server closes the connection short of the declared length.
func (x *exchange) truncated(body []byte) {
	h := x.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	x.rec.Status = http.StatusOK
	x.w.WriteHeader(http.StatusOK)
	now := time.Now()
	if _, err := x.w.Write(body[:len(body)/2]); err != nil {
		x.rec.Canceled = true
		return
	}
	if x.flush() {
		x.rec.ChunkSent = append(x.rec.ChunkSent, now)
	}
}
