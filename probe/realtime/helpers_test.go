package realtime_test

import (
	"context"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/realtime"
)

// t0 is the fake clocks' start.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// stepClock is a fake clock whose every Now reading is handed to the test
// through nows, so the test moves time in lock step with the backend.
type stepClock struct {
	*clock.Fake
	nows chan time.Time
}

func (c *stepClock) Now() time.Time {
	t := c.Fake.Now()
	c.nows <- t
	return t
}

// expectNow waits for the backend's next clock reading and checks it is t0 + want.
func (c *stepClock) expectNow(t *testing.T, what string, want time.Duration) {
	t.Helper()
	select {
	case got := <-c.nows:
		if d := got.Sub(t0); d != want {
			t.Fatalf("%s read the clock at %v, want %v", what, d, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the backend did not read the clock within 10 s", what)
	}
}

// waitPending polls until the fake clock has n pending timers.
func waitPending(t *testing.T, f *clock.Fake, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.Pending() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d timers pending, want %d", f.Pending(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// newBackend returns a backend of cfg, failing the test on error.
func newBackend(t *testing.T, cfg realtime.Config) *realtime.Backend {
	t.Helper()
	if cfg.Audio == nil {
		cfg.Audio = realtime.Tone(300 * time.Millisecond)
	}
	if cfg.Pacing == "" {
		cfg.Pacing = realtime.PacingFast
	}
	b, err := realtime.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// do runs one request without a parent deadline.
func do(b *realtime.Backend) *probe.Record { return b.Do(context.Background(), &probe.Request{Seq: 1}) }

// checkOutcome fails unless rec has outcome o and error type e.
func checkOutcome(t *testing.T, rec *probe.Record, o probe.Outcome, e probe.ErrorType) {
	t.Helper()
	if rec.Outcome != o || rec.ErrorType != e {
		t.Fatalf("outcome %s/%q (%s), want %s/%q", rec.Outcome, rec.ErrorType, rec.Error, o, e)
	}
}
