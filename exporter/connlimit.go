package exporter

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// connLimiter bounds the connections of a server and, when they are all
// taken, closes the one idle the longest to make room for a new client:
// kept-alive connections that their clients leave unused cannot lock the
// others (a health check, a scrape) out until IdleTimeout. Its ConnState
// must be the server's, so that it knows which connections are idle.
type connLimiter struct {
	slots chan struct{}

	mu   sync.Mutex
	idle map[net.Conn]time.Time
}

// newConnLimiter returns a limiter of limit connections at once.
func newConnLimiter(limit int) *connLimiter {
	return &connLimiter{slots: make(chan struct{}, limit), idle: map[net.Conn]time.Time{}}
}

// ConnState is the server's http.Server.ConnState: it keeps the set of
// idle connections.
func (c *connLimiter) ConnState(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if state == http.StateIdle {
		c.idle[conn] = time.Now()
		return
	}
	delete(c.idle, conn)
}

// closeOldestIdle closes the connection idle the longest and reports
// whether there was one.
func (c *connLimiter) closeOldestIdle() bool {
	c.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for conn, t := range c.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = conn, t
		}
	}
	delete(c.idle, oldest)
	c.mu.Unlock()
	if oldest == nil {
		return false
	}
	_ = oldest.Close()
	return true
}

// reclaimEvery is how often a client waiting for a slot looks again for
// an idle connection to close.
const reclaimEvery = 100 * time.Millisecond

// acquire takes a slot for an accepted connection: a free one, else the
// slot of the connection idle the longest, else the first that frees up
// or turns idle; false when done closes first.
func (c *connLimiter) acquire(done <-chan struct{}) bool {
	tick := time.NewTicker(reclaimEvery)
	defer tick.Stop()
	for {
		select {
		case c.slots <- struct{}{}:
			return true
		default:
		}
		if c.closeOldestIdle() {
			// Closing a connection frees its slot at once, unless another
			// client took it meanwhile: then wait as below.
			tick.Reset(time.Millisecond)
		}
		select {
		case c.slots <- struct{}{}:
			return true
		case <-done:
			return false
		case <-tick.C:
			tick.Reset(reclaimEvery)
		}
	}
}

// Listener returns l limited: an accepted connection is handed to the
// server once it has a slot (see acquire), and frees it when closed. At
// most one accepted connection waits beyond the limit.
func (c *connLimiter) Listener(l net.Listener) net.Listener {
	return &limitedListener{Listener: l, limiter: c, done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	limiter   *connLimiter
	done      chan struct{}
	closeOnce sync.Once
}

// Accept implements net.Listener.
func (l *limitedListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if !l.limiter.acquire(l.done) {
		_ = conn.Close()
		return nil, net.ErrClosed
	}
	return &limitedConn{Conn: conn, release: func() { <-l.limiter.slots }}, nil
}

// Close implements net.Listener, also ending a wait for a slot.
func (l *limitedListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close implements net.Conn, freeing the slot once.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
