// Package testsupport holds the helpers the tests of cmd/llmprober and its
// internal packages share: a log buffer safe for concurrent reads and a
// raw HTTP server on loopback. Only tests import it.
package testsupport

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// SyncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// RawHTTP serves every connection on a loopback listener by reading one
// request and writing answer as it stands (status line, headers and body),
// and returns the server's base URL. The listener and every connection are
// closed when the test ends.
func RawHTTP(t *testing.T, answer string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { serveRaw(c, answer) })
		}
	})
	return "http://" + l.Addr().String()
}

// serveRaw reads one request from c, then writes answer and closes c.
func serveRaw(c net.Conn, answer string) {
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
		return
	}
	_, _ = io.WriteString(c, answer)
}
