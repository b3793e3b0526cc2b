package realtime

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
)

// dialer returns the WebSocket dialer of one session's connection: the
// proxy from the environment, the target's TLS settings, no compression,
// and a connection that closes when the request's context is done and
// reads at most maxHandshakeBytes until hs.done is called. The dialer
// applies only a context's deadline to the upgrade and does not watch its
// cancellation, so without that a server that accepts the connection but
// never answers the handshake would hold the request past its timeout and
// past shutdown; and it reads the answer's status line and headers with
// no bound of its own.
func (b *Backend) dialer(hs *handshake) *websocket.Dialer {
	return &websocket.Dialer{Proxy: http.ProxyFromEnvironment, TLSClientConfig: b.cfg.TLS, NetDialContext: hs.dial}
}

// maxHandshakeBytes bounds the bytes read from a connection until the
// handshake is over: the answer's status line and headers
// (probe.MaxResponseHeaderBytes), and 64 KiB more for a proxy's answer,
// the TLS handshake (certificates), a refusal's body and what the
// dialer's buffer reads ahead.
const maxHandshakeBytes = probe.MaxResponseHeaderBytes + 64<<10

// errHandshakeTooLarge is the read error of a handshake past maxHandshakeBytes.
var errHandshakeTooLarge = fmt.Errorf("handshake answer longer than %d bytes", maxHandshakeBytes)

// handshake is the connection of one dial, once dialled.
type handshake struct {
	conn *cancelConn
}

// dial dials addr and returns a connection that is closed as soon as ctx
// is done (every blocked read or write of the handshake, TLS, proxy
// CONNECT, upgrade and after it then fails at once) and that fails its
// reads with errHandshakeTooLarge past maxHandshakeBytes until done.
func (hs *handshake) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cc := &cancelConn{Conn: c}
	cc.left.Store(maxHandshakeBytes)
	cc.stop = context.AfterFunc(ctx, func() { _ = cc.Conn.Close() })
	hs.conn = cc
	return cc, nil
}

// done lifts the handshake's bound: the messages that follow have their own.
func (hs *handshake) done() {
	if hs.conn != nil {
		hs.conn.left.Store(-1)
	}
}

// cancelConn is a connection closed when its context is done; closing it
// first stops watching the context. While left is not negative, its reads
// take at most left bytes more.
type cancelConn struct {
	net.Conn
	stop func() bool
	once sync.Once
	left atomic.Int64
}

// Read reads from the connection, within the handshake's bound.
func (c *cancelConn) Read(p []byte) (int, error) {
	left := c.left.Load()
	if left < 0 {
		return c.Conn.Read(p)
	}
	if left == 0 {
		return 0, errHandshakeTooLarge
	}
	n, err := c.Conn.Read(p[:min(int64(len(p)), left)])
	c.left.CompareAndSwap(left, left-int64(n))
	return n, err
}

// Close stops watching the context and closes the connection.
func (c *cancelConn) Close() error {
	c.once.Do(func() { c.stop() })
	return c.Conn.Close()
}
