package openai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// failingTransport fails its first fails requests with err, having told
// the request's trace it got a connection (reused as given), and sends
// the others with http.DefaultTransport.
type failingTransport struct {
	fails  int32
	reused bool
	err    error
	calls  atomic.Int32
}

func (f *failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if f.calls.Add(1) <= f.fails {
		if tr := httptrace.ContextClientTrace(req.Context()); tr != nil && tr.GotConn != nil {
			tr.GotConn(httptrace.GotConnInfo{Reused: f.reused})
		}
		return nil, f.err
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestStaleConnectionReplay: a request whose write finds a kept-alive
// connection closed or broken by the server is sent once more, on a new
// connection, and succeeds; on a new connection, on a read, or a second
// time, the failure is the request's (a connection error), as any other.
func TestStaleConnectionReplay(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`))
	}))
	defer srv.Close()
	defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	write := func(err error) error { return &net.OpError{Op: "write", Net: "tcp", Err: err} }
	for _, tc := range []struct {
		name    string
		fails   int32
		reused  bool
		err     error
		outcome probe.Outcome
		calls   int32
	}{
		{"reused, closed while writing", 1, true, write(net.ErrClosed), probe.Successful, 2},
		{"reused, broken pipe", 1, true, write(syscall.EPIPE), probe.Successful, 2},
		{"reused, reset while writing", 1, true, write(syscall.ECONNRESET), probe.Successful, 2},
		{"reused, twice", 2, true, write(net.ErrClosed), probe.Errored, 2},
		{"new connection", 1, false, write(net.ErrClosed), probe.Errored, 1},
		{"reused, reading", 1, true, &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, probe.Errored, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := &failingTransport{fails: tc.fails, reused: tc.reused, err: tc.err}
			b := newBackend(t, srv.URL+"/v1", &http.Client{Transport: ft}, func(c *Config) { c.Stream = false })
			rec := b.Do(context.Background(), &probe.Request{Messages: []probe.Message{{Role: "user", Content: "hi"}}})
			if rec.Outcome != tc.outcome || ft.calls.Load() != tc.calls {
				t.Errorf("%s/%s %q after %d calls, want %s after %d", rec.Outcome, rec.ErrorType, rec.Error, ft.calls.Load(), tc.outcome, tc.calls)
			}
			if tc.outcome == probe.Errored && rec.ErrorType != probe.ErrorConnection {
				t.Errorf("error type %s, want connection", rec.ErrorType)
			}
		})
	}
}
