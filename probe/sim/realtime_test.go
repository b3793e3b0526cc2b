package sim

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// TestRealtimeNotUpgrade checks that a plain GET of the realtime endpoint
// answers 400 and is logged.
func TestRealtimeNotUpgrade(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Get(s.URL() + RealtimePath)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
	logs := s.Requests()
	if len(logs) != 1 || logs[0].API != APIRealtime || logs[0].Status != 400 || !strings.HasPrefix(logs[0].ID, "sess-sim-") {
		t.Errorf("log %+v, want one realtime request with status 400", logs)
	}
}

// TestRealtimeCloseEndsStalledSession checks that Close ends a session the
// stall fault holds open, and logs it as canceled after its one delta.
func TestRealtimeCloseEndsStalledSession(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL(), "http")+RealtimePath,
		http.Header{FaultHeader: {string(FaultStall)}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"input_audio_buffer.append","audio":"AAAAAA=="}`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"session.created", "transcription.delta"} {
		_, msg, err := c.ReadMessage()
		if err != nil || !strings.Contains(string(msg), want) {
			t.Fatalf("read %q, %v; want %s", msg, err, want)
		}
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return while a realtime session stalled")
	}
	l := s.Requests()[0]
	if !l.Canceled || l.Fault != FaultStall || len(l.TokenSent) != 1 || len(l.AudioReceived) != 1 || l.PromptTokens != 1 {
		t.Errorf("log: canceled %v fault %q, %d deltas, %d chunks, %d prompt tokens; want true, stall, 1, 1, 1",
			l.Canceled, l.Fault, len(l.TokenSent), len(l.AudioReceived), l.PromptTokens)
	}
}

// TestRealtimeDeltaDueAtReadTimePlusDelay sends 300 audio chunks back to
// back, 150 read at t0 and 150 read 50 ms later on the sim's fake clock,
// with a delay of 200 ms: the sim reads every chunk at once (one delta
// timer each, so 300 pending), the first 150 deltas go out when the clock
// reaches t0 + 200 ms and the rest at t0 + 250 ms, then the final
// transcript.
func TestRealtimeDeltaDueAtReadTimePlusDelay(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	fake := clock.NewFake(t0)
	s, _ := start(t, Config{Realtime: RealtimeConfig{DeltaLatency: Latency{Mean: 200 * time.Millisecond}, Clock: fake}})
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL(), "http")+RealtimePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	sendChunks := func(n int) {
		for range n {
			if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"input_audio_buffer.append","audio":"AAAA"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	expect(t, c, realtime.EventSessionCreated, 1)
	sendChunks(150)
	waitTimers(t, fake, 150)
	fake.Advance(50 * time.Millisecond)
	sendChunks(150)
	if err := c.WriteMessage(websocket.TextMessage, []byte(`{"type":"input_audio_buffer.commit","final":true}`)); err != nil {
		t.Fatal(err)
	}
	waitTimers(t, fake, 300)
	fake.Set(t0.Add(200 * time.Millisecond))
	expect(t, c, realtime.EventDelta, 150)
	if n := fake.Pending(); n != 150 {
		t.Fatalf("%d delta timers pending at t0 + 200ms, want 150", n)
	}
	fake.Set(t0.Add(250 * time.Millisecond))
	expect(t, c, realtime.EventDelta, 150)
	expect(t, c, realtime.EventDone, 1)
}

// waitTimers polls until the fake clock has n pending timers.
func waitTimers(t *testing.T, f *clock.Fake, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.Pending() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d timers pending, want %d: the sim stopped reading", f.Pending(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// expect reads n events of type typ.
func expect(t *testing.T, c *websocket.Conn, typ string, n int) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := range n {
		var ev struct {
			Type string `json:"type"`
		}
		if err := c.ReadJSON(&ev); err != nil || ev.Type != typ {
			t.Fatalf("event %d of %d: %q, %v; want %s", i+1, n, ev.Type, err, typ)
		}
	}
}

// TestRealtimeClientMessageLimit: a client message longer than maxBody
// closes the session with 1009 (message too big) instead of being kept.
func TestRealtimeClientMessageLimit(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.URL(), "http")+RealtimePath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	w, err := c.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat("x", 64<<10))
	for sent := 0; sent <= maxBody; sent += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			break // the server has closed: the limit is reached
		}
	}
	_ = w.Close()
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
				t.Fatalf("read error %v, want close 1009", err)
			}
			return
		}
	}
}
