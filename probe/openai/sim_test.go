package openai_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/openai"
	"github.com/llmprober/llmprober/probe/sim"
)

// measureBound is how much later than the sim's own send time the backend
// may see a token: reading, parsing and scheduling under -race on 2 busy
// cores. Measured values earlier than the send time are always wrong.
const measureBound = 50 * time.Millisecond

// TestMeasuredTimesAgainstSimSendTimes sends streamed requests, some of them
// concurrently, to the simulated endpoint and compares every measured instant
// with the instants at which the sim wrote the corresponding chunk. Both sides
// read the same process clock.
func TestMeasuredTimesAgainstSimSendTimes(t *testing.T) {
	s, err := sim.Start(sim.Config{
		TTFT: sim.Latency{Mean: 20 * time.Millisecond, Jitter: 10 * time.Millisecond},
		ITL:  sim.Latency{Mean: 5 * time.Millisecond, Jitter: 3 * time.Millisecond},
		Seed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for _, api := range []string{"chat", "completions"} {
		b, err := openai.New(openai.Config{Target: "sim", BaseURL: s.URL() + "/v1", API: api, Model: "m", Stream: true, Timeout: 10 * time.Second, Client: client})
		if err != nil {
			t.Fatal(err)
		}
		w := probe.NewSynthetic(probe.Fixed(12), probe.Fixed(16), 3)
		recs := make([]*probe.Record, 12)
		prompts := make([]string, len(recs))
		var wg sync.WaitGroup
		for i := range recs { // four waves of three concurrent requests
			if i%3 == 0 {
				wg.Wait()
			}
			req := w.Request(uint64(i))
			prompts[i] = req.Messages[0].Content
			wg.Go(func() { recs[i] = b.Do(context.Background(), req) })
		}
		wg.Wait()
		logs := map[string]sim.RequestLog{}
		for _, l := range s.Requests() {
			logs[l.Prompt] = l
		}
		for i, rec := range recs {
			l, ok := logs[prompts[i]]
			if !ok {
				t.Fatalf("%s: request %d not found in the sim's log", api, i)
			}
			checkAgainstSim(t, api, rec, l)
		}
	}
}

// checkAgainstSim checks rec's instants against the sim's log l of the same
// request (found by its unique prompt).
func checkAgainstSim(t *testing.T, api string, rec *probe.Record, l sim.RequestLog) {
	t.Helper()
	if rec.Outcome != probe.Successful || rec.OutputTokens != 16 || rec.OutputTokensFrom != probe.TokensFromUsage {
		t.Fatalf("%s: outcome %s (%s), %d output tokens from %q; want successful, 16 from usage", api, rec.Outcome, rec.Error, rec.OutputTokens, rec.OutputTokensFrom)
	}
	first, last := l.TokenSent[0], l.TokenSent[len(l.TokenSent)-1]
	within := func(name string, measured, sent time.Time) {
		if d := measured.Sub(sent); d < 0 || d > measureBound {
			t.Errorf("%s: %s measured %v after the sim sent it, want within [0, %v]", api, name, d, measureBound)
		}
	}
	within("first token", rec.FirstToken, first)
	within("last token", rec.LastToken, last)
	if rec.RequestStart.After(l.Received) {
		t.Errorf("%s: request start %v after the sim received the request", api, rec.RequestStart.Sub(l.Received))
	}
	// TTFT can only be longer than the sim's own first-token delay: the
	// request started before the sim received it and the token arrived after
	// it was sent.
	ttft, _ := rec.TTFT()
	if simTTFT := first.Sub(l.Received); ttft < simTTFT || ttft > simTTFT+2*measureBound {
		t.Errorf("%s: TTFT %v, sim's own %v; want within [sim, sim+%v]", api, ttft, simTTFT, 2*measureBound)
	}
	// ITL from the sim's send times; the two end points each err by at most
	// measureBound, so the per-gap error is at most measureBound/15.
	itl, _ := rec.ITL()
	simITL := last.Sub(first) / 15
	if d := itl - simITL; d < -measureBound/15 || d > measureBound/15 {
		t.Errorf("%s: ITL %v, sim's own %v; want within ±%v", api, itl, simITL, measureBound/15)
	}
}
