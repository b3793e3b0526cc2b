package sim

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
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
