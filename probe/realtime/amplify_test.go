package realtime_test

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/internal/endless"
	"github.com/llmprober/llmprober/probe/realtime"
)

// maxRetained bounds the live heap one session keeps while it reads an
// adversarial server, in bytes: one message (1 MiB) as read and as
// decoded, gorilla's buffers, and 1 MiB of slack.
const maxRetained = 4 << 20

// messageCase is one adversarial server: what it writes after
// session.created, and the text the request's error must hold.
type messageCase struct {
	name  string
	write func(c *websocket.Conn, src *endless.Reader)
	shape endless.Shape
	want  string
}

// oneMessage writes src as a single message of type mt.
func oneMessage(mt int) func(*websocket.Conn, *endless.Reader) {
	return func(c *websocket.Conn, src *endless.Reader) {
		w, err := c.NextWriter(mt)
		if err != nil {
			return
		}
		_, _ = io.Copy(w, src)
		_ = w.Close()
	}
}

// manyMessages writes src in messages of one pattern each.
func manyMessages(c *websocket.Conn, src *endless.Reader) {
	buf := make([]byte, 64)
	for {
		n, err := src.Read(buf[:len(`{"type":"session.updated"}`)])
		if err != nil || c.WriteMessage(websocket.TextMessage, buf[:n]) != nil {
			return
		}
	}
}

// TestMessageAmplification plays servers that send, after
// session.created, one endless message of every adversarial JSON shape,
// endless informational messages, or endless compressed junk in binary
// messages, at 16 and 64 MiB, with MaxBytes 1 MiB: each request is
// errored, protocol, naming the bound it crossed, and the live heap while
// it reads grows by less than maxRetained at both lengths.
func TestMessageAmplification(t *testing.T) {
	var cases []messageCase
	for _, s := range endless.JSONShapes() {
		cases = append(cases, messageCase{name: "one message: " + s.Name, write: oneMessage(websocket.TextMessage), shape: s,
			want: "server message too large: longer than 1048576 bytes"})
	}
	cases = append(cases,
		messageCase{name: "informational messages forever", write: manyMessages,
			shape: endless.Shape{Pattern: `{"type":"session.updated"}`},
			want:  "server events longer than 1048576 bytes together in one request"},
		messageCase{name: "compressed junk, binary", write: oneMessage(websocket.BinaryMessage),
			shape: endless.Shape{Pattern: endless.Gzip("x")}, want: "server message too large"},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int64{16 << 20, 64 << 20} {
				src := endless.New(tc.shape.Prefix, tc.shape.Pattern, n)
				url := serve(t, script{end: func(c *websocket.Conn, _ <-chan struct{}) { tc.write(c, src) }})
				b := newBackend(t, realtime.Config{BaseURL: url, Clock: clock.NewFake(t0), MaxBytes: 1 << 20, Timeout: time.Minute})
				base := endless.LiveHeap()
				rec := do(b)
				retained := max(src.Peak(), base) - base
				checkOutcome(t, rec, probe.Errored, probe.ErrorProtocol)
				if !strings.Contains(rec.Error, tc.want) {
					t.Fatalf("%d MiB: error %q, want one with %q", n>>20, rec.Error, tc.want)
				}
				if retained > maxRetained {
					t.Errorf("%d MiB: live heap grew by %d bytes, want at most %d", n>>20, retained, maxRetained)
				}
				t.Logf("%d MiB: live heap grew by at most %d bytes", n>>20, retained)
			}
		})
	}
}

// TestHandshakeAmplification answers the handshake with a status line and
// then one endless header line, or endless header lines, at 16 and 64
// MiB: the request is errored, protocol, naming the handshake's bound,
// and keeps less than maxRetained.
func TestHandshakeAmplification(t *testing.T) {
	shapes := []endless.Shape{
		{Name: "one endless header", Prefix: "HTTP/1.1 101 Switching Protocols\r\nX-Junk: ", Pattern: "x"},
		{Name: "endless headers", Prefix: "HTTP/1.1 101 Switching Protocols\r\n", Pattern: "X-A: b\r\n"},
		{Name: "endless status line", Prefix: "HTTP/1.1 101 ", Pattern: "x"},
	}
	for _, s := range shapes {
		t.Run(s.Name, func(t *testing.T) {
			for _, n := range []int64{16 << 20, 64 << 20} {
				src := endless.New(s.Prefix, s.Pattern, n)
				url := streamServer(t, src)
				b := newBackend(t, realtime.Config{BaseURL: url, Clock: clock.NewFake(t0), Timeout: time.Minute})
				base := endless.LiveHeap()
				rec := do(b)
				retained := max(endless.LiveHeap(), base) - base
				checkOutcome(t, rec, probe.Errored, probe.ErrorProtocol)
				if want := "handshake answer longer than 131072 bytes"; rec.Error != want {
					t.Fatalf("%d MiB: error %q, want %q", n>>20, rec.Error, want)
				}
				if retained > maxRetained {
					t.Errorf("%d MiB: live heap grew by %d bytes, want at most %d", n>>20, retained, maxRetained)
				}
			}
		})
	}
}

// streamServer answers every connection's handshake with src, once it
// has read the request's head; it and every connection are closed when
// the test ends.
func streamServer(t *testing.T, src io.Reader) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		buf := make([]byte, 4096)
		for head := ""; !strings.Contains(head, "\r\n\r\n"); {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			head += string(buf[:n])
		}
		_, _ = io.Copy(c, src)
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return "http://" + ln.Addr().String() + "/v1"
}
