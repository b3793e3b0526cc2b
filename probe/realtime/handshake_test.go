package realtime_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/textproto"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// rawServer accepts TCP connections, reads the handshake and writes answer
// (nothing when empty), then reads on without ever closing. Each read
// handshake is reported on the returned channel; the listener and every
// connection are closed when the test ends.
func rawServer(t *testing.T, answer string) (url string, handshakes <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{}, 8)
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				r := textproto.NewReader(bufio.NewReader(c))
				if _, err := r.ReadLine(); err != nil {
					return
				}
				if _, err := r.ReadMIMEHeader(); err != nil {
					return
				}
				got <- struct{}{}
				if answer != "" {
					_, _ = io.WriteString(c, answer)
				}
				_, _ = io.Copy(io.Discard, r.R)
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/v1", got
}

// awaitRecord waits up to 10 s for the record of a request in flight.
func awaitRecord(t *testing.T, done <-chan *probe.Record) *probe.Record {
	t.Helper()
	select {
	case rec := <-done:
		return rec
	case <-time.After(10 * time.Second):
		t.Fatal("the request still hangs in the handshake")
		return nil
	}
}

// awaitHandshake waits up to 10 s for the server to have read a handshake.
func awaitHandshake(t *testing.T, got <-chan struct{}) {
	t.Helper()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the server read no handshake within 10 s")
	}
}

// TestSilentHandshakeTimesOut checks that the request timeout ends a
// handshake the server never answers: the request is errored with
// timeout when the (fake) clock reaches the 5 s timeout, with latency 5 s.
func TestSilentHandshakeTimesOut(t *testing.T) {
	url, got := rawServer(t, "")
	fake := clock.NewFake(t0)
	b := newBackend(t, realtime.Config{BaseURL: url, Timeout: 5 * time.Second, Clock: fake})
	done := make(chan *probe.Record, 1)
	go func() { done <- do(b) }()
	awaitHandshake(t, got)
	waitPending(t, fake, 1) // the request timeout
	fake.Advance(5 * time.Second)
	rec := awaitRecord(t, done)
	checkOutcome(t, rec, probe.Errored, probe.ErrorTimeout)
	if rec.Error != "request timed out after 5s" || rec.HTTPStatus != 0 {
		t.Errorf("error %q, status %d; want %q, 0", rec.Error, rec.HTTPStatus, "request timed out after 5s")
	}
	if d := rec.End.Sub(rec.RequestStart); d != 5*time.Second {
		t.Errorf("end − request start = %v, want 5s", d)
	}
}

// TestSilentHandshakeCanceled checks that cancelling the parent context
// (shutdown) ends a handshake the server never answers, as incomplete.
func TestSilentHandshakeCanceled(t *testing.T) {
	url, got := rawServer(t, "")
	b := newBackend(t, realtime.Config{BaseURL: url})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan *probe.Record, 1)
	go func() { done <- b.Do(ctx, &probe.Request{}) }()
	awaitHandshake(t, got)
	cancel()
	checkOutcome(t, awaitRecord(t, done), probe.Incomplete, probe.ErrorCanceled)
}

// TestGarbageHandshakeAnswer checks that an answer to the handshake that
// is not an HTTP response is a protocol error, not a connection error.
func TestGarbageHandshakeAnswer(t *testing.T) {
	for name, c := range map[string]struct{ answer, want string }{
		"not HTTP":        {"garbage\r\n\r\n", `handshake answer is not HTTP: malformed HTTP response "garbage"`},
		"bad status code": {"HTTP/1.1 1o1 Switching Protocols\r\n\r\n", `handshake answer is not HTTP: malformed HTTP status code "1o1"`},
		"bad version":     {"SSH-2.0 101 OpenSSH\r\n\r\n", `handshake answer is not HTTP: malformed HTTP version "SSH-2.0"`},
		"bad header line": {"HTTP/1.1 101 Switching Protocols\r\nno colon\r\n\r\n", `handshake answer is not HTTP: malformed MIME header: missing colon: "no colon"`},
	} {
		t.Run(name, func(t *testing.T) {
			url, _ := rawServer(t, c.answer)
			rec := do(newBackend(t, realtime.Config{BaseURL: url, Timeout: 5 * time.Second}))
			checkOutcome(t, rec, probe.Errored, probe.ErrorProtocol)
			if rec.Error != c.want || rec.HTTPStatus != 0 {
				t.Errorf("error %q, status %d; want %q, 0", rec.Error, rec.HTTPStatus, c.want)
			}
		})
	}
}
