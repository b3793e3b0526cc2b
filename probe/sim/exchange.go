package sim

import (
	"log/slog"
	"net"
	"net/http"
	"time"
)

// exchange is one completion request being answered.
type exchange struct {
	s    *Server
	w    http.ResponseWriter
	rc   *http.ResponseController
	r    *http.Request
	plan *plan
	rec  *RequestLog
}

// htmlPage is the body of the html fault, like a proxy's error page.
const htmlPage = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>" +
	"<body><h1>Bad Gateway</h1><p>The upstream server did not answer.</p></body></html>\n"

// answer sends the response the plan describes.
func (x *exchange) answer() {
	if x.hostile() {
		return
	}
	switch x.plan.fault {
	case FaultHTTP500:
		x.writeWhole(http.StatusInternalServerError, "application/json",
			errorJSON(http.StatusInternalServerError, "server_error", "simulated internal error"))
	case FaultHTTP429:
		x.w.Header().Set("Retry-After", "1")
		x.writeWhole(http.StatusTooManyRequests, "application/json",
			errorJSON(http.StatusTooManyRequests, "rate_limit_error", "simulated rate limit"))
	case FaultHTML:
		x.writeWhole(http.StatusOK, "text/html; charset=utf-8", []byte(htmlPage))
	default:
		if x.plan.req.stream {
			x.stream()
		} else {
			x.unary()
		}
	}
}

// writeWhole answers code with body at once and, once flushed, logs the
// instant taken just before the write.
func (x *exchange) writeWhole(code int, contentType string, body []byte) {
	x.rec.Status = code
	now := time.Now()
	writeBody(x.w, code, contentType, body)
	if x.flush() {
		x.rec.ChunkSent = append(x.rec.ChunkSent, now)
	}
}

// flush sends what was written; false means the client is gone.
func (x *exchange) flush() bool {
	if err := x.rc.Flush(); err != nil {
		slog.Debug("sim could not flush", "id", x.plan.id, "err", err)
		x.rec.Canceled = true
		return false
	}
	return true
}

// waitFor waits until d after Received; false means the client went away or
// the server closed first.
func (x *exchange) waitFor(d time.Duration) bool {
	wait := time.Until(x.rec.Received.Add(d))
	if wait <= 0 {
		return !x.over()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-x.r.Context().Done():
	case <-x.s.done:
	}
	x.rec.Canceled = true
	return false
}

// over reports whether the client went away or the server closed.
func (x *exchange) over() bool {
	select {
	case <-x.r.Context().Done():
	case <-x.s.done:
	default:
		return false
	}
	x.rec.Canceled = true
	return true
}

// stall holds the request until the client goes away or the server closes.
func (x *exchange) stall() {
	select {
	case <-x.r.Context().Done():
	case <-x.s.done:
	}
	x.rec.Canceled = true
}

// reset aborts the connection with a TCP reset. Where the connection cannot
// be taken over (HTTP/2, a recorder), it aborts the response instead.
func (x *exchange) reset() {
	conn, _, err := x.rc.Hijack()
	if err != nil {
		slog.Debug("sim could not hijack, aborting instead", "id", x.plan.id, "err", err)
		panic(http.ErrAbortHandler)
	}
	setLingerZero(conn)
	if err := conn.Close(); err != nil {
		slog.Debug("sim could not close hijacked connection", "id", x.plan.id, "err", err)
	}
}

// setLingerZero makes closing c send a reset instead of a FIN, unwrapping
// TLS and similar wrappers down to the TCP connection.
func setLingerZero(c net.Conn) {
	for {
		switch t := c.(type) {
		case *net.TCPConn:
			if err := t.SetLinger(0); err != nil {
				slog.Debug("sim could not set linger", "err", err)
			}
			return
		case interface{ NetConn() net.Conn }:
			c = t.NetConn()
		default:
			return
		}
	}
}
