package openai

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// stallAfter returns an afterLast hook that reports on stalled and then
// holds the response open until the client goes away.
func stallAfter(stalled chan<- struct{}) func(*http.Request) {
	return func(r *http.Request) {
		close(stalled)
		select {
		case <-r.Context().Done():
		case <-time.After(waitLimit):
		}
	}
}

func TestTimeoutOnFakeClock(t *testing.T) {
	tests := []struct {
		name   string
		steps  []step
		status int
		chunks int
	}{
		// The stream stalls after one chunk at 50 ms; the timeout of 1 s fires at 1 s.
		{name: "stall mid-stream", steps: []step{{ms(50), content("a")}}, status: 200, chunks: 1},
		// The server never answers: no status, no chunk.
		{name: "stall before the response", status: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stalled := make(chan struct{})
			s := &script{steps: tt.steps, afterLast: stallAfter(stalled)}
			b := startScript(t, s, func(c *Config) { c.Timeout = time.Second })
			recs := make(chan *probe.Record)
			go func() { recs <- b.Do(context.Background(), request()) }()
			<-stalled
			if n := s.clk.Pending(); n != 1 {
				t.Fatalf("pending timers = %d, want the request timeout", n)
			}
			s.clk.Set(t0.Add(time.Second))
			rec := <-recs
			if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorTimeout || rec.Error != "request timed out after 1s" {
				t.Fatalf("outcome = %s/%s %q, want errored/timeout", rec.Outcome, rec.ErrorType, rec.Error)
			}
			if d, ok := rec.Duration(); !ok || d != time.Second {
				t.Errorf("duration = %v, %v; want exactly the timeout, 1s", d, ok)
			}
			if rec.HTTPStatus != tt.status || rec.ChunkGaps.Chunks() != tt.chunks {
				t.Errorf("status = %d, chunks = %d; want %d, %d", rec.HTTPStatus, rec.ChunkGaps.Chunks(), tt.status, tt.chunks)
			}
		})
	}
}

func TestTimeoutOnRealClock(t *testing.T) {
	url, client := newTestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, content("a"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	b := newBackend(t, url, client, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	rec := b.Do(context.Background(), request())
	if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorTimeout {
		t.Fatalf("outcome = %s/%s %q, want errored/timeout", rec.Outcome, rec.ErrorType, rec.Error)
	}
	// The timer starts just before RequestStart is read (so that nothing
	// but the send follows it); allow 1 ms for that gap.
	if d, ok := rec.Duration(); !ok || d < 99*time.Millisecond {
		t.Errorf("duration = %v, %v; want at least the timeout, 100ms", d, ok)
	}
	if rec.Iterations != 1 || rec.HTTPStatus != 200 {
		t.Errorf("iterations = %d, status = %d; want 1, 200", rec.Iterations, rec.HTTPStatus)
	}
}

func TestClientTimeoutIsATimeout(t *testing.T) {
	// A limit of the shared client itself (not the backend's) is still a timeout.
	url, client := newTestServer(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	client.Timeout = 50 * time.Millisecond
	rec := newBackend(t, url, client, nil).Do(context.Background(), request())
	if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorTimeout {
		t.Fatalf("outcome = %s/%s %q, want errored/timeout", rec.Outcome, rec.ErrorType, rec.Error)
	}
}

func TestParentCancel(t *testing.T) {
	t.Run("mid-stream", func(t *testing.T) {
		stalled := make(chan struct{})
		s := &script{steps: []step{{ms(30), content("a")}}, afterLast: stallAfter(stalled)}
		b := startScript(t, s, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		recs := make(chan *probe.Record)
		go func() { recs <- b.Do(ctx, request()) }()
		<-stalled
		s.clk.Advance(ms(20))
		cancel()
		rec := <-recs
		if rec.Outcome != probe.Incomplete || rec.ErrorType != probe.ErrorCanceled || rec.Error != "canceled: context canceled" {
			t.Fatalf("outcome = %s/%s %q, want incomplete/canceled", rec.Outcome, rec.ErrorType, rec.Error)
		}
		// Cancelled at 50 ms, after one token at 30 ms.
		if d, _ := rec.Duration(); d != ms(50) || rec.Iterations != 1 {
			t.Errorf("duration = %v, iterations = %d; want 50ms, 1", d, rec.Iterations)
		}
		if rec.Finished() {
			t.Error("an incomplete request counts as finished")
		}
	})
	t.Run("before sending", func(t *testing.T) {
		url, client := newTestServer(t, http.NotFoundHandler())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		rec := newBackend(t, url, client, nil).Do(ctx, request())
		if rec.Outcome != probe.Incomplete || rec.ErrorType != probe.ErrorCanceled || rec.HTTPStatus != 0 {
			t.Fatalf("outcome = %s/%s status %d, want incomplete/canceled, 0", rec.Outcome, rec.ErrorType, rec.HTTPStatus)
		}
	})
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	rec := newBackend(t, "http://"+addr+"/v1", client, nil).Do(context.Background(), request())
	if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorConnection || rec.HTTPStatus != 0 {
		t.Fatalf("outcome = %s/%s status %d, want errored/connection, 0", rec.Outcome, rec.ErrorType, rec.HTTPStatus)
	}
	if !strings.HasPrefix(rec.Error, "could not send request: ") || !strings.Contains(rec.Error, "refused") {
		t.Errorf("error = %q, want a refused connection", rec.Error)
	}
	if rec.RequestStart.IsZero() || rec.End.Before(rec.RequestStart) || !rec.HTTP.ConnectDone.IsZero() {
		t.Errorf("start %v, end %v, connect done %v", rec.RequestStart, rec.End, rec.HTTP.ConnectDone)
	}
}

// rawServer answers every connection with response and closes it; with
// reset, the close is abortive (a TCP reset).
func rawServer(t *testing.T, response string, reset bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			readHead(conn)
			_, _ = io.WriteString(conn, response)
			if reset {
				_ = conn.(*net.TCPConn).SetLinger(0)
			}
			_ = conn.Close()
		}
	}()
	return "http://" + ln.Addr().String() + "/v1"
}

// readHead reads a request's head (up to its blank line).
func readHead(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(waitLimit))
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil || line == "\r\n" {
			return
		}
	}
}

func TestConnectionClosedEarly(t *testing.T) {
	event := content("a")
	chunked := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	tests := []struct {
		name     string
		stream   bool
		response string
		reset    bool
		errType  probe.ErrorType
	}{
		{
			name:     "chunked stream cut without its last chunk",
			stream:   true,
			response: chunked + strconv.FormatInt(int64(len(event)), 16) + "\r\n" + event + "\r\n",
			errType:  probe.ErrorConnection,
		},
		{
			name:     "stream delimited by closing the connection, closed before DONE",
			stream:   true,
			response: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + event,
			errType:  probe.ErrorProtocol,
		},
		{
			name:     "connection reset mid-stream",
			stream:   true,
			response: chunked + strconv.FormatInt(int64(len(event)), 16) + "\r\n" + event + "\r\n",
			reset:    true,
			errType:  probe.ErrorConnection,
		},
		{
			name:     "body shorter than its Content-Length",
			response: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"choices\":",
			errType:  probe.ErrorConnection,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			b := newBackend(t, rawServer(t, tt.response, tt.reset), client, func(c *Config) { c.Stream = tt.stream })
			rec := b.Do(context.Background(), request())
			if rec.Outcome != probe.Errored || rec.ErrorType != tt.errType {
				t.Fatalf("outcome = %s/%s %q, want errored/%s", rec.Outcome, rec.ErrorType, rec.Error, tt.errType)
			}
			// A reset may overtake the response head; otherwise the status arrived.
			if rec.HTTPStatus != 200 && !tt.reset {
				t.Errorf("status = %d, want 200", rec.HTTPStatus)
			}
		})
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	var mu sync.Mutex
	followed := 0
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	mux.HandleFunc("/elsewhere", func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		followed++
		mu.Unlock()
	})
	url, client := newTestServer(t, mux)
	rec := newBackend(t, url, client, nil).Do(context.Background(), request())
	want := `HTTP 302: redirect to "/elsewhere" not followed`
	if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorProtocol || rec.Error != want || rec.HTTPStatus != http.StatusFound {
		t.Fatalf("outcome = %s/%s %q status %d, want errored/protocol %q 302", rec.Outcome, rec.ErrorType, rec.Error, rec.HTTPStatus, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if followed != 0 || client.CheckRedirect != nil {
		t.Errorf("redirect followed %d times; shared client's CheckRedirect changed: %v", followed, client.CheckRedirect != nil)
	}
}

func TestTransportErrorTypes(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		connected bool
		want      probe.ErrorType
	}{
		{"dial failure", &net.OpError{Op: "dial", Err: errors.New("refused")}, false, probe.ErrorConnection},
		{"dial timeout", &net.OpError{Op: "dial", Err: timeoutErr{}}, false, probe.ErrorConnection},
		{"TLS handshake timeout", timeoutErr{}, false, probe.ErrorConnection},
		{"read timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, true, probe.ErrorTimeout},
		{"reset", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, true, probe.ErrorConnection},
		{"unexpected EOF", io.ErrUnexpectedEOF, true, probe.ErrorConnection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := transportType(tt.err, tt.connected); got != tt.want {
				t.Fatalf("transportType(%v, %v) = %s, want %s", tt.err, tt.connected, got, tt.want)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
