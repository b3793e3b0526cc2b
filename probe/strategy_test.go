package probe

import (
	"math"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/trace"
)

// checkTargets asks s for the decisions of requests 0..len(want)-1 and compares their At.
func checkTargets(t *testing.T, s Strategy, want []time.Duration) {
	t.Helper()
	for n, w := range want {
		d := s.Next(uint64(n))
		if d.Kind != Due || d.At != w {
			t.Errorf("request %d: %+v, want due at %v", n, d, w)
		}
	}
}

func TestConstantTargets(t *testing.T) {
	tests := []struct {
		name   string
		rate   float64
		rampup time.Duration
		want   []time.Duration
	}{
		// n/4 s.
		{"no rampup", 4, 0, []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second}},
		// Rate 4/s reached after R = 2 s; Rate·R/2 = 4 requests are due
		// during the ramp at √(2·2·n/4) = √n s: 0, 1, √2 = 1.414213562 (ns,
		// rounded), √3 = 1.732050808, 2; then n/4 + 1: 2.25, 2.5.
		{"rampup", 4, 2 * time.Second, []time.Duration{
			0, time.Second, 1414213562, 1732050808, 2 * time.Second, 2250 * time.Millisecond, 2500 * time.Millisecond,
		}},
		// Rate 0.5/s over R = 10 s: 2.5 requests during the ramp at
		// √(2·10·n/0.5) = √(40n): 0, √40 = 6.324555320, √80 = 8.944271910;
		// then 2n + 5: 11, 13.
		{"slow rampup", 0.5, 10 * time.Second, []time.Duration{0, 6324555320, 8944271910, 11 * time.Second, 13 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewConstant(tt.rate, tt.rampup)
			if err != nil {
				t.Fatal(err)
			}
			checkTargets(t, s, tt.want)
		})
	}
}

func TestConstantRampupRateGrows(t *testing.T) {
	// During the ramp the gaps shrink; after it every gap is 1/rate exactly.
	s, _ := NewConstant(100, 3*time.Second) // 150 requests during the ramp
	prevGap := time.Duration(math.MaxInt64)
	for n := uint64(1); n < 400; n++ {
		gap := s.Next(n).At - s.Next(n-1).At
		switch {
		case n <= 150 && gap > prevGap:
			t.Fatalf("gap before request %d grew to %v from %v during the rampup", n, gap, prevGap)
		case n > 151 && gap != 10*time.Millisecond:
			t.Fatalf("gap before request %d is %v after the rampup, want 10ms", n, gap)
		}
		prevGap = gap
	}
}

func TestPoissonReproducibleAndMean(t *testing.T) {
	a, _ := NewPoisson(50, 7)
	b, _ := NewPoisson(50, 7)
	c, _ := NewPoisson(50, 8)
	differs := false
	for n := uint64(0); n < 1000; n++ {
		da, db, dc := a.Next(n), b.Next(n), c.Next(n)
		if da != db {
			t.Fatalf("request %d: seed 7 gave %v then %v", n, da.At, db.At)
		}
		differs = differs || da.At != dc.At
	}
	if !differs {
		t.Error("seeds 7 and 8 gave the same schedule")
	}
	if d := a.Next(0); d.At != 0 {
		t.Errorf("request 0 due at %v, want the run's start", d.At)
	}
	// Asking again for an earlier request replays the draws: a pure function of n.
	want := b.Next(500).At
	if got := a.Next(500).At; got != want {
		t.Errorf("request 500 asked again: %v, want %v", got, want)
	}
	// The mean gap over 200000 draws is 1/50 s = 20 ms; the standard error
	// is 20 ms/√200000 ≈ 0.045 ms, so 1% (0.2 ms) is more than 4 of them.
	const n = 200000
	mean := a.Next(n).At.Seconds() / n
	if math.Abs(mean-0.02) > 0.0002 {
		t.Errorf("mean gap %v s, want 0.02 s within 1%%", mean)
	}
}

func TestClosedConcurrentRampup(t *testing.T) {
	// Two streams over a 1 s rampup: stream 0 at 0, stream 1 at 500 ms.
	s, err := NewConcurrent(2, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		complete *uint64 // request completed before asking
		at       time.Duration
		issue    bool // the prober acts on the answer
		want     Decision
	}{
		{issue: true, want: Decision{Kind: Due, At: 0, Stream: 0}},
		// The prober waits for stream 1's start...
		{want: Decision{Kind: Due, At: 500 * time.Millisecond, Stream: 1}},
		// ...but request 0 ends at 200 ms, before it: stream 0 goes first.
		{complete: ptr(uint64(0)), at: 200 * time.Millisecond, issue: true, want: Decision{Kind: Due, At: 200 * time.Millisecond, Stream: 0}},
		{issue: true, want: Decision{Kind: Due, At: 500 * time.Millisecond, Stream: 1}},
		{want: Decision{Kind: AwaitCompletion}},
		// Request 2 (stream 1) is dropped at 700 ms: its stream is free again.
		{complete: ptr(uint64(2)), at: 700 * time.Millisecond, issue: true, want: Decision{Kind: Due, At: 700 * time.Millisecond, Stream: 1}},
		{want: Decision{Kind: AwaitCompletion}},
	}
	n := uint64(0)
	for i, st := range steps {
		if st.complete != nil {
			s.Completed(*st.complete, nil, st.at)
		}
		got := s.Next(n)
		if got != st.want {
			t.Fatalf("step %d: Next(%d) = %+v, want %+v", i, n, got, st.want)
		}
		if st.issue {
			s.Issue(n, got)
			n++
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestClosedSynchronousAndThroughput(t *testing.T) {
	sync := NewSynchronous()
	if d := sync.Next(0); d != (Decision{Kind: Due}) {
		t.Fatalf("synchronous first: %+v", d)
	}
	sync.Issue(0, Decision{Kind: Due})
	if d := sync.Next(1); d.Kind != AwaitCompletion {
		t.Fatalf("synchronous with one in flight: %+v, want await", d)
	}
	sync.Completed(0, &Record{}, 3*time.Second)
	if d := sync.Next(1); d != (Decision{Kind: Due, At: 3 * time.Second}) {
		t.Fatalf("synchronous after the first ended at 3 s: %+v", d)
	}

	// Throughput: three streams, every slot targeted at the start (At 0).
	tp, _ := NewThroughput(3)
	for n := uint64(0); n < 3; n++ {
		d := tp.Next(n)
		if d != (Decision{Kind: Due, Stream: int(n)}) {
			t.Fatalf("throughput request %d: %+v", n, d)
		}
		tp.Issue(n, d)
	}
	if d := tp.Next(3); d.Kind != AwaitCompletion {
		t.Fatalf("throughput full: %+v", d)
	}
	tp.Completed(1, &Record{}, 5*time.Second)
	if d := tp.Next(3); d != (Decision{Kind: Due, At: 0, Stream: 1}) {
		t.Fatalf("throughput after request 1 ended: %+v, want stream 1 at 0", d)
	}
	for _, s := range []Strategy{sync, tp} {
		if s.HasSchedule() {
			t.Errorf("%s has a schedule", s.Name())
		}
	}
}

// testTrace is a trace of rows at 0, 1 s, (none), 3 s.
func testTrace() *trace.Trace {
	return &trace.Trace{File: "t.jsonl", Requests: []trace.Request{
		{Line: 1, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2},
		{Line: 2, Timestamp: time.Second, HasTimestamp: true, PromptTokens: 6, OutputTokens: 3, ConversationID: "a", Turn: 1},
		{Line: 3, PromptTokens: 7, OutputTokens: 4, ConversationID: "a", Turn: 2},
		{Line: 4, Timestamp: 3 * time.Second, HasTimestamp: true, PromptTokens: 8, OutputTokens: 5},
	}}
}

func TestReplayTargets(t *testing.T) {
	// Scale 0.5: 0, 0.5 s, unscheduled, 1.5 s. Looping: the pass lasts the
	// last timestamp plus the mean gap, 3 + (3−0)/(3−1) = 4.5 s, so pass 1
	// is at (4.5 + ts)·0.5: 2.25, 2.75, unscheduled, 3.75 s.
	half := 500 * time.Millisecond
	pass0 := []Decision{{Kind: Due}, {Kind: Due, At: half}, {Kind: Due, Unscheduled: true}, {Kind: Due, At: 3 * half}}
	pass1 := []Decision{{Kind: Due, At: 2250 * time.Millisecond}, {Kind: Due, At: 2750 * time.Millisecond},
		{Kind: Due, Unscheduled: true}, {Kind: Due, At: 3750 * time.Millisecond}}
	tests := []struct {
		name string
		loop bool
		want []Decision
	}{
		{"once", false, append(append([]Decision(nil), pass0...), Decision{Kind: Stop})},
		{"loop", true, append(append([]Decision(nil), pass0...), pass1...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReplay(testTrace(), 0.5, tt.loop)
			if err != nil {
				t.Fatal(err)
			}
			for n, want := range tt.want {
				if got := r.Next(uint64(n)); got != want {
					t.Errorf("request %d: %+v, want %+v", n, got, want)
				}
			}
		})
	}
}

func TestReplayTimeScaleStretches(t *testing.T) {
	tr, err := trace.Read("trace/testdata/azure_conv_head200.csv", "")
	if err != nil {
		t.Fatal(err)
	}
	// The last row is 61.263537 s after the first: at scale 2, 122.527074 s;
	// at scale 0.1, 6.1263537 s.
	for scale, want := range map[float64]time.Duration{1: 61263537 * time.Microsecond, 2: 122527074 * time.Microsecond, 0.1: 6126353700} {
		r, _ := NewReplay(tr, scale, false)
		if got := r.Next(199).At; got != want {
			t.Errorf("scale %v: last row at %v, want %v", scale, got, want)
		}
	}
}

func TestStrategyErrors(t *testing.T) {
	noSpan := &trace.Trace{File: "z.jsonl", Requests: []trace.Request{{HasTimestamp: true, PromptTokens: 1, OutputTokens: 1}}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"zero rate", second(NewConstant(0, 0)), "rate must be a positive number of requests per second, got 0"},
		{"negative rampup", second(NewConstant(1, -time.Second)), "rampup must not be negative, got -1s"},
		{"infinite poisson", second(NewPoisson(math.Inf(1), 1)), "rate must be a positive number of requests per second, got +Inf"},
		{"zero streams", second(NewConcurrent(0, 0)), "streams must be from 1 to 10000, got 0"},
		{"long rampup", second(NewConcurrent(2, 25*time.Hour)), "rampup must be from 0 to 24h0m0s, got 25h0m0s"},
		{"zero throughput", second(NewThroughput(0)), "max concurrency must be from 1 to 10000, got 0"},
		{"zero scale", second(NewReplay(testTrace(), 0, false)), "time scale must be a positive number, got 0"},
		{"loop without span", second(NewReplay(noSpan, 1, true)), "could not loop trace z.jsonl: its timestamps span no time (every one is 0); spread them, or leave them out to replay the rows back to back"},
		{"empty trace", second(NewReplay(&trace.Trace{}, 1, false)), "could not replay trace: it holds no requests"},
	}
	for _, tt := range tests {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("%s: error %v, want %s", tt.name, tt.err, tt.want)
		}
	}
	if _, err := NewReplay(noSpan, 1, false); err != nil {
		t.Errorf("a single row without loop: %v", err)
	}
}

// second returns the error of a constructor's results.
func second[T any](_ T, err error) error { return err }
