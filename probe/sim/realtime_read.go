package sim

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// clientEvent holds the fields of the client events the sim reads.
type clientEvent struct {
	Type  string `json:"type"`
	Audio string `json:"audio"`
	Final bool   `json:"final"`
}

// read reads client events until the connection ends: each audio chunk
// queues a delta, the final commit queues the final transcript. Malformed
// events and unknown types are ignored, as is audio after the final commit.
func (rt *rtSession) read() {
	defer close(rt.gone)
	clk := rt.s.cfg.Realtime.Clock
	final := false
	for {
		_, data, err := rt.conn.ReadMessage()
		if err != nil {
			return
		}
		var ev clientEvent
		if err := json.Unmarshal(data, &ev); err != nil || final {
			continue
		}
		switch ev.Type {
		case realtime.EventAppend:
			rt.audio(ev.Audio, clk)
		case realtime.EventCommit:
			if ev.Final {
				final = true
				rt.queue.push(rtItem{})
			}
		}
	}
}

// audio logs one chunk's arrival and queues its delta, due DeltaLatency
// after it on the sim's clock.
func (rt *rtSession) audio(b64 string, clk clock.Clock) {
	if len(rt.rec.AudioReceived) < maxPendingDeltas {
		rt.rec.AudioReceived = append(rt.rec.AudioReceived, time.Now())
	}
	pcm, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		slog.Debug("sim realtime audio is not base64", "id", rt.rec.ID, "err", err)
	}
	rt.mu.Lock()
	rt.rec.PromptTokens += max(len(pcm)/2/160, 1) // one token per 10 ms of audio
	rt.mu.Unlock()
	word := " " + vocabulary[rt.rng.IntN(len(vocabulary))]
	if !rt.queue.push(rtItem{timer: clk.NewTimer(draw(rt.rng, rt.s.cfg.Realtime.DeltaLatency)), word: word}) {
		slog.Debug("sim realtime delta dropped: too many unsent", "id", rt.rec.ID, "limit", maxPendingDeltas)
	}
}
