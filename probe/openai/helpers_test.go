package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// t0 is the fake clock's start.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// waitLimit bounds every wait for the other side in these tests; reaching it
// means the test is broken, not that something was slow.
const waitLimit = 10 * time.Second

// newTestServer starts h and returns its URL with /v1 and a client; both are
// closed when the test ends.
func newTestServer(t *testing.T, h http.Handler) (string, *http.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	client := srv.Client()
	t.Cleanup(func() {
		client.CloseIdleConnections()
		srv.Close()
	})
	return srv.URL + "/v1", client
}

// newBackend returns a backend for baseURL with test defaults, changed by edit.
func newBackend(t *testing.T, baseURL string, client *http.Client, edit func(*Config)) *Backend {
	t.Helper()
	cfg := Config{
		Target:  "t1",
		BaseURL: baseURL,
		API:     "chat",
		Model:   "m",
		Stream:  true,
		Timeout: time.Minute,
		Client:  client,
	}
	if edit != nil {
		edit(&cfg)
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

// request is the request most tests send.
func request() *probe.Request {
	return &probe.Request{
		Seq:             4,
		Messages:        []probe.Message{{Role: "user", Content: "hi"}},
		PromptTokens:    7,
		MaxOutputTokens: 16,
	}
}

// step is one write of a scripted response: the fake clock moves on by
// wait, then text is written and flushed.
type step struct {
	wait time.Duration
	text string
}

// readGate lets a server wait until the client has handled everything sent
// so far: the client's response body reports, each time it is asked for
// more, how many bytes it had delivered. The SSE reader asks for more only
// when every complete event before has been returned and handled.
type readGate struct {
	mu    sync.Mutex
	asked int64
	ch    chan struct{}
}

func newReadGate() *readGate { return &readGate{ch: make(chan struct{}, 1)} }

func (g *readGate) ask(delivered int64) {
	g.mu.Lock()
	g.asked = max(g.asked, delivered)
	g.mu.Unlock()
	select {
	case g.ch <- struct{}{}:
	default:
	}
}

// wait blocks until the client asked for more after receiving n bytes; it
// reports false if that did not happen within waitLimit or ctx ended.
func (g *readGate) wait(ctx context.Context, n int64) bool {
	limit := time.NewTimer(waitLimit)
	defer limit.Stop()
	for {
		g.mu.Lock()
		asked := g.asked
		g.mu.Unlock()
		if asked >= n {
			return true
		}
		select {
		case <-g.ch:
		case <-ctx.Done():
			return false
		case <-limit.C:
			return false
		}
	}
}

// gateTransport wraps every response body so that it reports to gate.
type gateTransport struct {
	base *http.Transport
	gate *readGate
}

func (g gateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := g.base.RoundTrip(r)
	if err == nil {
		resp.Body = &gateBody{rc: resp.Body, gate: g.gate}
	}
	return resp, err
}

func (g gateTransport) CloseIdleConnections() { g.base.CloseIdleConnections() }

type gateBody struct {
	rc   io.ReadCloser
	gate *readGate
	n    int64
}

func (b *gateBody) Read(p []byte) (int, error) {
	b.gate.ask(b.n)
	n, err := b.rc.Read(p)
	b.n += int64(n)
	return n, err
}

func (b *gateBody) Close() error { return b.rc.Close() }

// script serves steps on a fake clock, waiting after each step until the
// client has handled it, so that every instant the client records is exact.
type script struct {
	t           *testing.T
	clk         *clock.Fake
	gate        *readGate
	status      int    // default 200
	contentType string // default text/event-stream; noContentType for none
	steps       []step
	// afterLast, when set, runs after the last step has been handled (at
	// once when there are no steps, before any response is sent).
	afterLast func(r *http.Request)
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	switch ct := s.contentType; ct {
	case "":
		w.Header().Set("Content-Type", "text/event-stream")
	case noContentType:
		w.Header()["Content-Type"] = nil // no header, and no sniffing by net/http
	default:
		w.Header().Set("Content-Type", ct)
	}
	if s.status != 0 {
		w.WriteHeader(s.status)
	}
	var off int64
	for i, st := range s.steps {
		s.clk.Advance(st.wait)
		_, _ = io.WriteString(w, st.text)
		w.(http.Flusher).Flush()
		off += int64(len(st.text))
		if i == len(s.steps)-1 && s.afterLast == nil {
			return
		}
		if !s.gate.wait(r.Context(), off) {
			s.t.Errorf("client did not read step %d", i)
			return
		}
	}
	s.afterLast(r)
}

// noContentType is a script's content type for a response without one.
const noContentType = "none"

// startScript serves s to requests of the returned backend, which runs on
// the script's fake clock.
func startScript(t *testing.T, s *script, edit func(*Config)) *Backend {
	t.Helper()
	s.t, s.clk, s.gate = t, clock.NewFake(t0), newReadGate()
	url, client := newTestServer(t, s)
	client.Transport = gateTransport{base: client.Transport.(*http.Transport), gate: s.gate}
	return newBackend(t, url, client, func(c *Config) {
		c.Clock = s.clk
		if edit != nil {
			edit(c)
		}
	})
}

// runScript serves s to one request and returns its record. Every timer of
// the backend must have been stopped by then.
func runScript(t *testing.T, s *script, edit func(*Config)) *probe.Record {
	t.Helper()
	rec := startScript(t, s, edit).Do(context.Background(), request())
	if n := s.clk.Pending(); n != 0 {
		t.Errorf("%d timers still pending after Do", n)
	}
	return rec
}

// sinceStart returns a quantity as a duration, or -1 when it is undefined.
func sinceStart(d time.Duration, ok bool) time.Duration {
	if !ok {
		return -1
	}
	return d
}

// ms is a number of milliseconds.
func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

// data is one SSE data event.
func data(s string) string { return "data: " + s + "\n\n" }

const done = "data: [DONE]\n\n"
