package realtime

import (
	"context"
	"net"
	"net/http"
	"sync"

	"github.com/gorilla/websocket"
)

// dialer returns the WebSocket dialer of the backend's connections: the
// proxy from the environment, the target's TLS settings, no compression,
// and connections that close when the request's context is done. The
// dialer applies only a context's deadline to the upgrade and does not
// watch its cancellation, so without that a server that accepts the
// connection but never answers the handshake would hold the request past
// its timeout and past shutdown.
func (b *Backend) dialer() *websocket.Dialer {
	return &websocket.Dialer{Proxy: http.ProxyFromEnvironment, TLSClientConfig: b.cfg.TLS, NetDialContext: dialCanceling}
}

// dialCanceling dials addr and returns a connection that is closed as soon
// as ctx is done: every blocked read or write of the handshake (TLS, proxy
// CONNECT, upgrade) and after it then fails at once.
func dialCanceling(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cc := &cancelConn{Conn: c}
	cc.stop = context.AfterFunc(ctx, func() { _ = cc.Conn.Close() })
	return cc, nil
}

// cancelConn is a connection closed when its context is done; closing it
// first stops watching the context.
type cancelConn struct {
	net.Conn
	stop func() bool
	once sync.Once
}

// Close stops watching the context and closes the connection.
func (c *cancelConn) Close() error {
	c.once.Do(func() { c.stop() })
	return c.Conn.Close()
}
