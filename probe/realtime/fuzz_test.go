package realtime

import (
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// serverEventSeeds are server messages of every shape, for the fuzzers.
var serverEventSeeds = []string{
	`{"type":"transcription.delta","delta":"hi"}`,
	`{"type":"transcription.done","text":"hi","usage":{"prompt_tokens":3,"completion_tokens":1}}`,
	`{"type":"conversation.item.input_audio_transcription.completed","usage":{"input_tokens":-1,"output_tokens":2}}`,
	`{"type":"error","error":{"message":"x"}}`, `{"type":"error","error":"x"}`, `{"type":"error","error":7}`,
	`{"type":"vendor.x"}`, `{"delta":"x"}`, `not json`, `{"type":"transcription.delta","delta":null}`,
	`{"type":"error","error":"bad audio","code":"invalid_audio"}`, `{"type":"error","code":500}`,
	`{"type":"conversation.item.input_audio_transcription.failed","error":{"code":"c","message":"m"}}`,
	`{"type":"transcription.done","text":"whole","usage":{"input_tokens":9223372036854775807,"output_tokens":1e30}}`,
	`{"type":"transcription.done","text":"","usage":"n/a"}`, `{"type":"transcription.done","usage":{"completion_tokens":2.5}}`,
	`{"type":"transcription.delta","delta":[{"type":"text","text":"a"},{"text":5}]}`, "\xef\xbb\xbf" + `{"type":"transcription.done","text":[""],"error":{}}`,
	`{"type":"transcription.done","text":"a","error":{"message":"m","code":{"k":1}}}`,
}

// FuzzServerEvents feeds arbitrary server messages to the event handling:
// it never panics, every failure has a type, a token event always has its
// receive time, and the first token never comes after the last.
func FuzzServerEvents(f *testing.F) {
	for _, seed := range serverEventSeeds {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		b := &Backend{cfg: Config{MaxUnknownEvents: 2, Clock: clock.NewFake(time.Unix(0, 0))}}
		rec := &probe.Record{}
		s := &session{b: b, rec: rec}
		s.usage.Streamed()
		s.committed.Store(true)
		mt := websocket.BinaryMessage
		if text {
			mt = websocket.TextMessage
		}
		now := time.Unix(1, 0)
		for range 4 { // the same message again, to pass the unknown-event bound
			ev, err := decode(mt, data)
			if err == nil {
				_, err = s.event(ev, now)
			}
			if err != nil && !isTyped(err) {
				t.Fatalf("untyped failure %v", err)
			}
			now = now.Add(time.Second)
		}
		if rec.Received.Len() != rec.Iterations || (rec.Iterations > 0 && rec.LastToken.Before(rec.FirstToken)) {
			t.Fatalf("%d received, %d iterations, first %v last %v", rec.Received.Len(), rec.Iterations, rec.FirstToken, rec.LastToken)
		}
		s.usage.Apply(rec, probe.Sent{Prompt: true}) // the audio; no output limit is sent
		if rec.OutputTokens < 0 || rec.PromptTokens < 0 || rec.OutputTokens > probe.MaxTokens || rec.PromptTokens > probe.MaxTokens {
			t.Fatalf("token counts %d, %d outside [0, %d]", rec.OutputTokens, rec.PromptTokens, probe.MaxTokens)
		}
		if rec.OutputTokens < rec.Iterations || rec.OutputSeen != (rec.Iterations > 0) {
			t.Fatalf("%d output tokens, %d token events, output seen %v", rec.OutputTokens, rec.Iterations, rec.OutputSeen)
		}
	})
}
