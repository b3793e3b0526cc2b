package realtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
	"github.com/llmprober/llmprober/probe/sim"
)

// TestRoundTripMetricsLockStep drives the backend and the sim on one fake
// clock: audio packets go out at 0, 0.1 and 0.2 s, the sim answers each
// 300 ms later, so the tokens arrive at 0.3, 0.4 and 0.5 s. Time to last
// round trip = 0.5 − 0.2 = 300 ms; average RTT = mean(0.3, 0.4, 0.5) −
// mean(0, 0.1, 0.2) = 300 ms.
func TestRoundTripMetricsLockStep(t *testing.T) {
	fake := clock.NewFake(t0)
	s, err := sim.Start(sim.Config{Realtime: sim.RealtimeConfig{
		DeltaLatency: sim.Latency{Mean: 300 * time.Millisecond}, Clock: fake}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	clk := &stepClock{Fake: fake, nows: make(chan time.Time)}
	b := newBackend(t, realtime.Config{Target: "rt", BaseURL: s.URL() + "/v1", Model: "m",
		ChunkDuration: 100 * time.Millisecond, Pacing: realtime.PacingRealtime, Clock: clk})
	done := make(chan *probe.Record, 1)
	go func() { done <- do(b) }()
	clk.expectNow(t, "request start", 0)
	clk.expectNow(t, "append 0", 0)
	waitPending(t, fake, 2) // the next append; the first delta
	fake.Set(t0.Add(100 * time.Millisecond))
	clk.expectNow(t, "append 1", 100*time.Millisecond)
	waitPending(t, fake, 3)
	fake.Set(t0.Add(200 * time.Millisecond))
	clk.expectNow(t, "append 2", 200*time.Millisecond)
	waitPending(t, fake, 3) // the three deltas
	for i, at := range []time.Duration{300, 400, 500} {
		fake.Set(t0.Add(at * time.Millisecond))
		clk.expectNow(t, "delta "+string(rune('0'+i)), at*time.Millisecond)
	}
	clk.expectNow(t, "done", 500*time.Millisecond)
	rec := <-done
	checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
	checkDurations(t, map[string]want{
		"time to last round trip": {300 * time.Millisecond, rec.TimeToLastRoundTrip},
		"average RTT":             {300 * time.Millisecond, rec.AverageRTT},
		"TTFT":                    {300 * time.Millisecond, rec.TTFT},
		"TTFOT":                   {300 * time.Millisecond, rec.TTFOT},
		"latency":                 {500 * time.Millisecond, rec.Latency},
		"ITL":                     {100 * time.Millisecond, rec.ITL},
		"TPOT":                    {500 * time.Millisecond / 3, rec.TPOT},
	})
	if rec.OutputTokens != 3 || rec.OutputTokensFrom != probe.TokensFromUsage || rec.Iterations != 3 ||
		rec.PromptTokens != 30 || rec.PromptTokensFrom != probe.TokensFromUsage {
		t.Errorf("tokens: output %d from %q, %d iterations, prompt %d from %q; want 3 from usage, 3, 30 from usage",
			rec.OutputTokens, rec.OutputTokensFrom, rec.Iterations, rec.PromptTokens, rec.PromptTokensFrom)
	}
	if rec.API != realtime.API || !rec.Stream || rec.HTTPStatus != 101 || rec.Sent.Len() != 3 || rec.Received.Len() != 3 {
		t.Errorf("api %q stream %v status %d, %d sent, %d received; want realtime, true, 101, 3, 3",
			rec.API, rec.Stream, rec.HTTPStatus, rec.Sent.Len(), rec.Received.Len())
	}
}

// want is an expected duration and the record method that derives it.
type want struct {
	d   time.Duration
	get func() (time.Duration, bool)
}

func checkDurations(t *testing.T, ws map[string]want) {
	t.Helper()
	for name, w := range ws {
		if d, ok := w.get(); !ok || d != w.d {
			t.Errorf("%s = %v (defined %v), want %v", name, d, ok, w.d)
		}
	}
}

// TestMeasuredTimesAgainstSimSendTimes checks the real-clock measurements
// against the instants the sim logged: every packet was sent before the
// sim read it, every token was received after the sim wrote it, and not
// much later.
func TestMeasuredTimesAgainstSimSendTimes(t *testing.T) {
	s, err := sim.Start(sim.Config{Seed: 3, Realtime: sim.RealtimeConfig{
		DeltaLatency: sim.Latency{Mean: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := newBackend(t, realtime.Config{BaseURL: s.URL() + "/v1", Model: "m", Audio: realtime.Tone(time.Second),
		ChunkDuration: 50 * time.Millisecond, Pacing: realtime.PacingRealtime, Timeout: 10 * time.Second})
	for n := 1; n <= 3; n++ {
		rec := do(b)
		checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
		l := waitLogged(t, s, n)
		if rec.Sent.Len() != 20 || len(l.AudioReceived) != 20 || rec.Received.Len() != 20 || len(l.TokenSent) != 20 {
			t.Fatalf("%d sent, %d read by the sim, %d received, %d written by the sim; want 20 each",
				rec.Sent.Len(), len(l.AudioReceived), rec.Received.Len(), len(l.TokenSent))
		}
		// The record keeps the first, the last and the mean of each series.
		for i, pair := range [][2]time.Time{{rec.Sent.First(), l.AudioReceived[0]}, {rec.Sent.Last(), l.AudioReceived[19]}} {
			if pair[0].After(pair[1]) {
				t.Errorf("packet %d sent %v after the sim read it", 19*i, pair[0].Sub(pair[1]))
			}
		}
		for i, pair := range [][2]time.Time{{rec.Received.First(), l.TokenSent[0]}, {rec.Received.Last(), l.TokenSent[19]}} {
			if d := pair[0].Sub(pair[1]); d < 0 || d > time.Second {
				t.Errorf("token %d received %v after the sim wrote it, want within [0, 1s]", 19*i, d)
			}
		}
		if d := rec.Sent.Last().Sub(rec.Sent.First()); d < 19*50*time.Millisecond {
			t.Errorf("last packet sent %v after the first, before its time %v", d, 19*50*time.Millisecond)
		}
		rtt, _ := rec.AverageRTT()
		if rtt < 10*time.Millisecond {
			t.Errorf("average RTT %v, want at least the sim's smallest delay 10ms", rtt)
		}
	}
}

// TestSimFaults checks the error type of every fault the sim injects into
// a realtime session.
func TestSimFaults(t *testing.T) {
	s, err := sim.Start(sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for fault, typ := range map[sim.Fault]probe.ErrorType{
		sim.FaultHTTP500: probe.ErrorHTTP5xx, sim.FaultHTTP429: probe.ErrorHTTP429, sim.FaultHTML: probe.ErrorProtocol,
		sim.FaultReset: probe.ErrorConnection, sim.FaultStall: probe.ErrorTimeout, sim.FaultMalformed: probe.ErrorProtocol,
		sim.FaultErrorEvent: probe.ErrorStream, sim.FaultTruncated: probe.ErrorProtocol,
	} {
		t.Run(string(fault), func(t *testing.T) {
			b := newBackend(t, realtime.Config{BaseURL: s.URL() + "/v1", Timeout: 300 * time.Millisecond,
				Header: map[string][]string{sim.FaultHeader: {string(fault)}}})
			rec := b.Do(context.Background(), &probe.Request{})
			checkOutcome(t, rec, probe.Errored, typ)
		})
	}
}

// waitLogged polls until the sim has logged n requests and returns the last.
func waitLogged(t *testing.T, s *sim.Server, n int) sim.RequestLog {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if logs := s.Requests(); len(logs) >= n {
			return logs[n-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sim logged %d requests, want %d", len(s.Requests()), n)
		}
		time.Sleep(time.Millisecond)
	}
}
