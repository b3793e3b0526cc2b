package exporter

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

func TestServerLimitsDefaults(t *testing.T) {
	s := NewServer(ServerOptions{Limits: ServerLimits{IdleTimeout: time.Second, MaxConnections: 3}})
	d := DefaultServerLimits
	got := []any{s.srv.ReadHeaderTimeout, s.srv.ReadTimeout, s.srv.WriteTimeout, s.srv.IdleTimeout, s.srv.MaxHeaderBytes,
		s.opts.Limits.MaxConnections, cap(s.records), s.opts.Limits.ShutdownTimeout}
	want := []any{d.ReadHeaderTimeout, d.ReadTimeout, d.WriteTimeout, time.Second, d.MaxHeaderBytes,
		3, d.MaxRecordsRequests, d.ShutdownTimeout}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("server settings %v; want %v", got, want)
	}
}

// rawConn dials the server and returns the connection and a reader on it.
func rawConn(t *testing.T, base string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, bufio.NewReader(c)
}

// roundTrip sends a GET of path on c and reads the answer's status.
func roundTrip(t *testing.T, c net.Conn, br *bufio.Reader, path string) int {
	t.Helper()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	return roundTripRead(t, c, br)
}

// roundTripRead reads the answer to a request sent on c and returns its
// status.
func roundTripRead(t *testing.T, _ net.Conn, br *bufio.Reader) int {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// An idle kept-alive connection is closed by the server after IdleTimeout.
func TestServerClosesIdleConnections(t *testing.T) {
	base, _ := startServer(t, NewServer(ServerOptions{Limits: ServerLimits{IdleTimeout: 50 * time.Millisecond}}))
	c, br := rawConn(t, base)
	if code := roundTrip(t, c, br, "/-/healthy"); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("read on the idle connection: %v; want EOF (closed by the server)", err)
	}
}

// A client that sends no headers is cut after ReadHeaderTimeout.
func TestServerCutsSlowHeaders(t *testing.T) {
	base, _ := startServer(t, NewServer(ServerOptions{Limits: ServerLimits{ReadHeaderTimeout: 50 * time.Millisecond}}))
	c, br := rawConn(t, base)
	_, _ = io.WriteString(c, "GET /-/healthy HTTP/1.1\r\nHost: localhost\r\n")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(br); err != nil {
		t.Errorf("read: %v; want the server to close the connection", err)
	}
}

// Beyond MaxConnections a connection waits unserved until one closes,
// while every connection is busy (here: in the middle of its headers).
func TestServerConnectionCap(t *testing.T) {
	base, _ := startServer(t, NewServer(ServerOptions{Limits: ServerLimits{MaxConnections: 2}}))
	first, firstR := rawConn(t, base)
	second, _ := rawConn(t, base)
	for _, c := range []net.Conn{first, second} {
		_, _ = io.WriteString(c, "GET /-/healthy HTTP/1.1\r\nHost: localhost\r\n")
	}
	third, thirdR := rawConn(t, base)
	_, _ = io.WriteString(third, "GET /-/healthy HTTP/1.1\r\nHost: localhost\r\n\r\n")
	_ = third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := thirdR.ReadByte(); err == nil {
		t.Fatal("a third connection was served while two were busy")
	}
	_, _ = io.WriteString(first, "\r\n")
	if code := roundTripRead(t, first, firstR); code != http.StatusOK {
		t.Fatalf("first: status %d", code)
	}
	_ = first.Close()
	_ = third.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(thirdR, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("third after the first closed: %v %v", resp, err)
	}
	_ = resp.Body.Close()
}

// When every connection is taken and some are idle (kept alive, unused),
// a new client gets the slot of the one idle the longest at once, instead
// of waiting for IdleTimeout: the oldest idle connection is closed, the
// other stays usable.
func TestServerConnectionCapReclaimsIdle(t *testing.T) {
	s := NewServer(ServerOptions{Limits: ServerLimits{MaxConnections: 2}})
	base, _ := startServer(t, s)
	first, firstR := rawConn(t, base)
	if code := roundTrip(t, first, firstR, "/-/healthy"); code != http.StatusOK {
		t.Fatalf("first: status %d", code)
	}
	awaitIdle(t, s.conns, 1) // the server marks a connection idle after its answer is out
	second, secondR := rawConn(t, base)
	if code := roundTrip(t, second, secondR, "/-/healthy"); code != http.StatusOK {
		t.Fatalf("second: status %d", code)
	}
	awaitIdle(t, s.conns, 2)
	third, thirdR := rawConn(t, base)
	_ = third.SetDeadline(time.Now().Add(10 * time.Second))
	if code := roundTrip(t, third, thirdR, "/-/healthy"); code != http.StatusOK {
		t.Fatalf("third, with two idle connections open: status %d", code)
	}
	_ = first.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := firstR.ReadByte(); err == nil {
		t.Error("the oldest idle connection was not closed")
	}
	if code := roundTrip(t, second, secondR, "/-/healthy"); code != http.StatusOK {
		t.Errorf("second, idle for less long: status %d", code)
	}
}

// awaitIdle waits (at most 10 s) until c counts n idle connections.
func awaitIdle(t *testing.T, c *connLimiter, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		idle := len(c.idle)
		c.mu.Unlock()
		if idle == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idle connections, want %d", idle, n)
		}
	}
}

// Shutdown cuts a client trickling a request body once ShutdownTimeout
// has passed, and reports no error.
func TestServerShutdownCutsSlowClient(t *testing.T) {
	s := NewServer(ServerOptions{Limits: ServerLimits{ShutdownTimeout: 100 * time.Millisecond}})
	reading := make(chan struct{})
	s.Handle("POST /upload", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(reading)
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, _ = io.WriteString(c, "POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\nx")
	<-reading
	start := time.Now()
	if err := s.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown: %v; want nil", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Shutdown took %v; want about the 100ms bound", d)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Errorf("read after shutdown: %v; want the connection closed", err)
	}
}

func TestInFlightLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{})
	h := newInFlight(1).limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(entered)
		<-release
		w.WriteHeader(http.StatusNoContent)
	}), metricsRefused)
	var wg sync.WaitGroup
	first := httptest.NewRecorder()
	wg.Go(func() { h.ServeHTTP(first, httptest.NewRequest("GET", "/metrics", nil)) })
	<-entered
	second := httptest.NewRecorder()
	h.ServeHTTP(second, httptest.NewRequest("GET", "/metrics", nil))
	close(release)
	wg.Wait()
	if first.Code != http.StatusNoContent || second.Code != http.StatusTooManyRequests || second.Header().Get("Retry-After") != "1" {
		t.Errorf("first %d, second %d with Retry-After %q; want 204, then 429 with 1", first.Code, second.Code, second.Header().Get("Retry-After"))
	}
}

// recordsFixture returns a store of alpha with n successful records ending
// 1 ms apart, one errored and one running, read at the end of the minute;
// its snapshots are cached, as a daemon's are, and the clock stands still.
func recordsFixture(t *testing.T, n int) *window.Store {
	t.Helper()
	clk := fakeAt(t0)
	st, err := window.NewStore("alpha", window.Settings{Windows: []time.Duration{time.Minute}, SampleCap: 10_000_000,
		Clock: clk, CacheTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	st.State("alpha", probe.StateReady, 0)
	for i := range n {
		st.Started("alpha")
		st.Finished(streamed("alpha", uint64(i), i, i, i+1, i+2, i+3, 10, 3))
	}
	st.Started("alpha")
	st.Finished(&probe.Record{Target: "alpha", Seq: uint64(n), RequestStart: at(5), End: at(9), Outcome: probe.Errored,
		ErrorType: probe.ErrorHTTP5xx, HTTPStatus: 500})
	st.Started("alpha")
	clk.Set(at(59000))
	return st
}

// The streamed records are exactly those of Snapshot.Records, in order,
// in a valid JSON document, on both API paths.
func TestRecordsStreamed(t *testing.T) {
	st := recordsFixture(t, 3)
	w := newTestWindows(t, nil, nil, st)
	s := NewServer(ServerOptions{Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	want := map[string]any{"sampled": false, "requests": []any{}, "running": []any{*timeJSON(at(59000))}}
	snap := st.Snapshot(at(59000), time.Minute)
	var reqs []any
	for _, r := range snap.Records() {
		b, _ := json.Marshal(newAPIRecord(&r, false))
		var v any
		_ = json.Unmarshal(b, &v)
		reqs = append(reqs, v)
	}
	want["requests"] = reqs
	want["running"] = []any{}
	for _, path := range []string{"/api/v1/targets/alpha/windows/1m?records=true", "/api/v1/targets?records=true"} {
		code, body, _ := get(t, c, "GET", base+path, nil)
		var doc map[string]any
		if err := json.Unmarshal([]byte(body), &doc); code != http.StatusOK || err != nil {
			t.Fatalf("%s: status %d, %v:\n%s", path, code, err, body)
		}
		win := doc
		if ts, ok := doc["targets"].([]any); ok {
			win = ts[0].(map[string]any)["windows"].([]any)[0].(map[string]any)
		}
		got := win["records"].(map[string]any)
		if len(reqs) != 4 || !reflect.DeepEqual(got["requests"], want["requests"]) || got["sampled"] != false {
			t.Errorf("%s: records\n%v\nwant\n%v", path, got, want)
		}
	}
}

// With every records slot taken, a request with records=true is answered
// 429 with Retry-After; one without records is served.
func TestRecordsRequestsLimited(t *testing.T) {
	w := newTestWindows(t, nil, nil, recordsFixture(t, 1))
	s := NewServer(ServerOptions{Windows: w, Limits: ServerLimits{MaxRecordsRequests: 2}})
	w.Register(s)
	base, c := startServer(t, s)
	for range 2 {
		if !w.heavy.acquire() {
			t.Fatal("no slot")
		}
	}
	code, body, hdr := get(t, c, "GET", base+"/api/v1/targets?records=true", nil)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") != "1" ||
		!strings.Contains(body, `"error": "more than 2 requests with records=true at once; retry later"`) {
		t.Errorf("all slots taken: %d, Retry-After %q, %s", code, hdr.Get("Retry-After"), body)
	}
	if code, _, _ := get(t, c, "GET", base+"/api/v1/targets", nil); code != http.StatusOK {
		t.Errorf("without records: %d; want 200", code)
	}
	w.heavy.release()
	if code, _, _ := get(t, c, "GET", base+"/api/v1/targets?records=true", nil); code != http.StatusOK {
		t.Errorf("after a release: %d; want 200", code)
	}
}

// stallClients sends n requests for path on raw connections that are
// never read, and returns them.
func stallClients(t *testing.T, base, path string, n int) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for range n {
		c, _ := rawConn(t, base)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		_, _ = io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: localhost\r\n\r\n")
		conns = append(conns, c)
	}
	return conns
}

// heapInUse returns the live heap after a collection, in bytes.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Clients that never read hold their records slots, not the records: the
// live heap grows by less than one window's records would take if built
// whole (about 900 bytes each), and a further client is refused.
func TestRecordsStreamHeapBounded(t *testing.T) {
	const n = 40000
	w := newTestWindows(t, nil, nil, recordsFixture(t, n))
	s := NewServer(ServerOptions{Windows: w, Limits: ServerLimits{MaxRecordsRequests: 4}})
	w.Register(s)
	base, c := startServer(t, s)
	before := heapInUse()
	conns := stallClients(t, base, "/api/v1/targets/alpha/windows/1m?records=true", 4)
	eventually(t, func() bool { return len(w.heavy) == 4 })
	if code, _, _ := get(t, c, "GET", base+"/api/v1/targets/alpha/windows/1m?records=true", nil); code != http.StatusTooManyRequests {
		t.Errorf("fifth request: %d; want 429", code)
	}
	grown := int64(heapInUse()) - int64(before)
	if bound := int64(n * 900); grown > bound {
		t.Errorf("heap grew by %d bytes with 4 stalled clients; want less than %d", grown, bound)
	}
	t.Logf("heap growth with 4 stalled clients over %d records: %d bytes", n, grown)
	for _, c := range conns {
		_ = c.Close()
	}
	eventually(t, func() bool { return len(w.heavy) == 0 })
}

// A client that stops reading is cut after StallTimeout, freeing its slot.
func TestRecordsStallCut(t *testing.T) {
	w := newTestWindows(t, nil, nil, recordsFixture(t, 40000))
	s := NewServer(ServerOptions{Windows: w, Limits: ServerLimits{StallTimeout: 50 * time.Millisecond}})
	w.Register(s)
	base, _ := startServer(t, s)
	stallClients(t, base, "/api/v1/targets/alpha/windows/1m?records=true", 1)
	eventually(t, func() bool { return len(w.heavy) == 1 })
	eventually(t, func() bool { return len(w.heavy) == 0 })
}

// eventually polls cond every 10 ms for up to 10 s.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
	}
}
