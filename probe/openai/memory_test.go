package openai

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// heapInUse returns the live heap after a full collection, in bytes.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// floodServer streams event as fast as the client takes it: first events
// copies, then, once the client has handled them and the test says so,
// more copies, then [DONE]. It tells the test each time the client has
// handled everything sent so far.
type floodServer struct {
	t             *testing.T
	gate          *readGate
	event         string
	first, more   int
	handled, next chan struct{}
}

func (s *floodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	var off int64
	write := func(n int) {
		batch := strings.Repeat(s.event, 1000)
		for i := 0; i < n; i += 1000 {
			k, _ := io.WriteString(w, batch)
			off += int64(k)
		}
		w.(http.Flusher).Flush()
		if !s.gate.wait(r.Context(), off) {
			s.t.Errorf("the client did not read the flood")
		}
		s.handled <- struct{}{}
	}
	write(s.first)
	<-s.next
	write(s.more)
	<-s.next
	_, _ = io.WriteString(w, done)
}

// TestFloodMemoryBounded streams 10 000 events, measures the live heap
// while the request is in flight, streams 200 000 more and measures
// again: what a request keeps does not grow with the events of its
// response (a timestamp per chunk would add at least 24 bytes each, 4.8
// MB here), for empty chunks (data:{}) and for token events alike.
func TestFloodMemoryBounded(t *testing.T) {
	const first, more, bound = 10000, 200000, 512 << 10
	for _, event := range []string{"data:{}\n\n", content("x")} {
		t.Run(strings.TrimSpace(event), func(t *testing.T) {
			s := &floodServer{t: t, gate: newReadGate(), event: event, first: first, more: more,
				handled: make(chan struct{}), next: make(chan struct{})}
			url, client := newTestServer(t, s)
			client.Transport = gateTransport{base: client.Transport.(*http.Transport), gate: s.gate}
			b := newBackend(t, url, client, func(c *Config) { c.Clock = clock.NewFake(t0) })
			got := make(chan *probe.Record, 1)
			go func() { got <- b.Do(context.Background(), request()) }()
			<-s.handled
			before := heapInUse()
			s.next <- struct{}{}
			<-s.handled
			after := heapInUse()
			s.next <- struct{}{}
			rec := <-got
			if rec.Outcome != probe.Successful || rec.ChunkGaps.Chunks() != first+more {
				t.Fatalf("outcome %s (%s), %d chunks; want successful, %d", rec.Outcome, rec.Error, rec.ChunkGaps.Chunks(), first+more)
			}
			if after > before && after-before > bound {
				t.Errorf("live heap grew by %d bytes over %d more events, want at most %d", after-before, more, bound)
			}
			t.Logf("live heap %d bytes after %d events, %d after %d", before, first, after, first+more)
		})
	}
}
