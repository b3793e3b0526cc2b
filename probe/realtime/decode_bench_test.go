package realtime

import (
	"testing"

	"github.com/gorilla/websocket"
)

// BenchmarkDecodeEvent measures decoding one transcript delta in OpenAI's
// spelling, as every server message is decoded.
func BenchmarkDecodeEvent(b *testing.B) {
	data := []byte(`{"event_id":"event_1","type":"conversation.item.input_audio_transcription.delta","item_id":"item_1","content_index":0,"delta":" hello"}`)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		ev, err := decode(websocket.TextMessage, data)
		if err != nil || !bool(ev.Delta) {
			b.Fatalf("event %+v, %v", ev, err)
		}
	}
}
