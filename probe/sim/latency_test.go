package sim

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

func TestLatencyLowerBounds(t *testing.T) {
	cfg := Config{
		TTFT:            Latency{Mean: 50 * time.Millisecond, Jitter: 20 * time.Millisecond},
		ITL:             Latency{Mean: 10 * time.Millisecond, Jitter: 5 * time.Millisecond},
		PrefillPerToken: time.Millisecond,
	}
	// Prompt of 10 words: the first token comes no earlier than
	// (50−20) + 10·1 = 40 ms after Received, token i no earlier than 40 + 5·i ms.
	const prompt = "one two three four five six seven eight nine ten"
	firstMin, itlMin := 40*time.Millisecond, 5*time.Millisecond
	s, c := start(t, cfg)

	resp := post(context.Background(), t, c, s.URL()+"/v1/chat/completions",
		`{"stream":true,"max_tokens":5,"messages":[{"role":"user","content":"`+prompt+`"}]}`, "")
	got := readSSE(resp.Body, nil)
	closeBody(resp)
	l := logOf(t, s, 1)[0]
	// Role, 5 tokens, finish, [DONE]: 8 events.
	if len(l.TokenSent) != 5 || len(got.at) != 8 {
		t.Fatalf("%d tokens logged and %d events read, want 5 and 8", len(l.TokenSent), len(got.at))
	}
	if d := l.ChunkSent[0].Sub(l.Received); d < firstMin {
		t.Errorf("role chunk sent %s after Received, want at least %s", d, firstMin)
	}
	for i, sent := range l.TokenSent {
		want := firstMin + time.Duration(i)*itlMin
		if d := sent.Sub(l.Received); d < want {
			t.Errorf("token %d sent %s after Received, want at least %s", i, d, want)
		}
		// Event i+1 (after the role chunk) cannot be read before the server
		// began writing it.
		if got.at[i+1].Before(sent) {
			t.Errorf("token %d read at %v, before it was sent at %v", i, got.at[i+1], sent)
		}
	}

	resp = post(context.Background(), t, c, s.URL()+"/v1/completions", `{"max_tokens":5,"prompt":"`+prompt+`"}`, "")
	readAll(t, resp.Body)
	closeBody(resp)
	l = logOf(t, s, 2)[1]
	// Whole answer after the last token: 40 + 4·5 = 60 ms.
	if d := l.ChunkSent[0].Sub(l.Received); d < firstMin+4*itlMin {
		t.Errorf("answer sent %s after Received, want at least %s", d, firstMin+4*itlMin)
	}
}

func TestDraw(t *testing.T) {
	tests := []struct {
		name     string
		l        Latency
		min, max time.Duration
	}{
		{"no jitter", Latency{Mean: 7 * time.Millisecond}, 7 * time.Millisecond, 7 * time.Millisecond},
		{"jitter", Latency{Mean: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}, 15 * time.Millisecond, 25 * time.Millisecond},
		// 10 ± 30 ms would reach −20 ms: negative draws become 0.
		{"jitter above mean", Latency{Mean: 10 * time.Millisecond, Jitter: 30 * time.Millisecond}, 0, 40 * time.Millisecond},
		{"zero", Latency{}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			lo, hi := time.Duration(1<<62), time.Duration(-1)
			for range 10000 {
				d := draw(rng, tt.l)
				lo, hi = min(lo, d), max(hi, d)
			}
			if lo < tt.min || hi > tt.max {
				t.Errorf("draws in [%s, %s], want within [%s, %s]", lo, hi, tt.min, tt.max)
			}
		})
	}
}
