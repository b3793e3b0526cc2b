package probe

import (
	"testing"
	"time"
)

// TestRecordQuantities checks every derived quantity of one streamed record
// against hand-computed values, and their absence when undefined.
func TestRecordQuantities(t *testing.T) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	r := &Record{
		Stream: true, Outcome: Successful, OutputTokens: 5,
		TargetedStart: at(0), PredecessorDone: at(30), RequestStart: at(50),
		FirstChunk: at(140), FirstToken: at(150), FirstOutputToken: at(190), LastToken: at(250), End: at(260),
	}
	ms := time.Millisecond
	cases := []struct {
		name string
		f    func() (time.Duration, bool)
		want time.Duration
	}{
		{"latency = 260 − 50", r.Latency, 210 * ms},
		{"TTFT = 150 − 50", r.TTFT, 100 * ms},
		{"TTFOT = 190 − 50", r.TTFOT, 140 * ms},
		{"time to first chunk = 140 − 50", r.TimeToFirstChunk, 90 * ms},
		{"ITL = (250 − 150) / (5 − 1)", r.ITL, 25 * ms},
		{"TPOT = (250 − 50) / 5", r.TPOT, 40 * ms},
		{"dispatch delay = 50 − 0", r.DispatchDelay, 50 * ms},
		{"predecessor delay = 30 − 0", r.TurnPredecessorDelay, 30 * ms},
		{"scheduling delay = 50 − 30", r.TurnSchedulingDelay, 20 * ms},
		{"scheduled latency = 260 − 0", r.ScheduledLatency, 260 * ms},
	}
	for _, c := range cases {
		if got, ok := c.f(); !ok || got != c.want {
			t.Errorf("%s: got %v (defined %v), want %v", c.name, got, ok, c.want)
		}
	}
	// One output token: ITL undefined; no schedule: dispatch quantities undefined;
	// incomplete: latencies undefined; errored: latency defined.
	one := *r
	one.OutputTokens, one.TargetedStart = 1, time.Time{}
	for name, f := range map[string]func() (time.Duration, bool){
		"ITL": one.ITL, "dispatch": one.DispatchDelay, "predecessor": one.TurnPredecessorDelay,
		"scheduling": one.TurnSchedulingDelay, "scheduled latency": one.ScheduledLatency,
		"round trip": one.TimeToLastRoundTrip, "average RTT": one.AverageRTT,
	} {
		if _, ok := f(); ok {
			t.Errorf("%s defined, want absent", name)
		}
	}
	inc := *r
	inc.Outcome = Incomplete
	if _, ok := inc.Latency(); ok {
		t.Error("latency of an incomplete request is defined")
	}
	errd := *r
	errd.Outcome = Errored
	if d, ok := errd.Latency(); !ok || d != 210*ms {
		t.Errorf("latency of an errored request: %v %v, want 210ms", d, ok)
	}
}

// TestAverageRTT checks the reference's WebSocket example: packets sent at
// 0, 0.1, 0.2 s and tokens received at 0.3, 0.4, 0.5 s give 300 ms for both
// round-trip metrics.
func TestAverageRTT(t *testing.T) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	r := &Record{Sent: InstantsOf(at(0), at(100), at(200)), Received: InstantsOf(at(300), at(400), at(500)), LastToken: at(500)}
	if d, ok := r.AverageRTT(); !ok || d != 300*time.Millisecond {
		t.Errorf("average RTT %v %v, want 300ms", d, ok)
	}
	if d, ok := r.TimeToLastRoundTrip(); !ok || d != 300*time.Millisecond {
		t.Errorf("time to last round trip %v %v, want 300ms", d, ok)
	}
}

// TestNoOutputNoTPOT: a whole response without output has no TPOT,
// whatever its output token count says; with output, TPOT is
// (End − RequestStart) / OutputTokens = 300 ms / 5.
func TestNoOutputNoTPOT(t *testing.T) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	r := Record{Outcome: Successful, OutputTokens: 5, RequestStart: at(0), End: at(300)}
	if d, ok := r.TPOT(); ok {
		t.Errorf("TPOT %v of a whole response without output, want absent", d)
	}
	r.OutputSeen = true
	if d, ok := r.TPOT(); !ok || d != 60*time.Millisecond {
		t.Errorf("TPOT %v %v, want 60ms", d, ok)
	}
}
