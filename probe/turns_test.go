package probe

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/trace"
)

// ctlBackend holds every request until the test finishes it by sequence
// number; RequestStart and End come from the clock, and each success reports
// 3 output tokens. It keeps the requests it was given.
type ctlBackend struct {
	clk   clock.Clock
	mu    sync.Mutex
	gates map[uint64]chan struct{}
	reqs  map[uint64]*Request
}

func newCtlBackend(clk clock.Clock) *ctlBackend {
	return &ctlBackend{clk: clk, gates: map[uint64]chan struct{}{}, reqs: map[uint64]*Request{}}
}

func (b *ctlBackend) gate(seq uint64) chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gates[seq] == nil {
		b.gates[seq] = make(chan struct{})
	}
	return b.gates[seq]
}

func (b *ctlBackend) Do(ctx context.Context, req *Request) *Record {
	rec := &Record{RequestStart: b.clk.Now(), Outcome: Successful, OutputTokens: 3}
	b.mu.Lock()
	b.reqs[req.Seq] = req
	b.mu.Unlock()
	select {
	case <-b.gate(req.Seq):
	case <-ctx.Done():
		rec.Outcome, rec.ErrorType = Incomplete, ErrorCanceled
	}
	rec.End = b.clk.Now()
	return rec
}

// finish lets request seq end now.
func (b *ctlBackend) finish(seq uint64) { close(b.gate(seq)) }

// sent returns how many requests reached the backend.
func (b *ctlBackend) sent() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.reqs)
}

func (b *ctlBackend) request(seq uint64) *Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reqs[seq]
}

// schedEvents records scheduler measurements.
type schedEvents struct {
	mu          sync.Mutex
	generations []time.Duration
	thinks      []time.Duration
}

func (s *schedEvents) GenerationDelay(_ string, d time.Duration) {
	s.mu.Lock()
	s.generations = append(s.generations, d)
	s.mu.Unlock()
}

func (s *schedEvents) ThinkTime(_ string, d time.Duration) {
	s.mu.Lock()
	s.thinks = append(s.thinks, d)
	s.mu.Unlock()
}

// bySeq returns the finished records ordered by sequence number.
func bySeq(ev *events) []*Record {
	_, _, _, fin := ev.snapshot()
	sort.Slice(fin, func(i, j int) bool { return fin[i].Seq < fin[j].Seq })
	return fin
}

// timing is what a test expects of one record's schedule quantities, as
// offsets from t0; a negative target means no targeted start.
type timing struct {
	target, start, predecessor, scheduling time.Duration
}

// checkTiming compares rec's targeted start, request start and the split of
// its dispatch delay with want.
func checkTiming(t *testing.T, rec *Record, want timing) {
	t.Helper()
	if want.target < 0 {
		if !rec.TargetedStart.IsZero() {
			t.Errorf("request %d: targeted start %v, want none", rec.Seq, rec.TargetedStart.Sub(t0))
		}
		for name, q := range map[string]func() (time.Duration, bool){
			"dispatch delay": rec.DispatchDelay, "predecessor delay": rec.TurnPredecessorDelay,
			"scheduling delay": rec.TurnSchedulingDelay, "scheduled latency": rec.ScheduledLatency,
		} {
			if d, ok := q(); ok {
				t.Errorf("request %d: %s %v, want absent", rec.Seq, name, d)
			}
		}
	} else if got := rec.TargetedStart.Sub(t0); rec.TargetedStart.IsZero() || got != want.target {
		t.Errorf("request %d: targeted start %v, want %v", rec.Seq, got, want.target)
	}
	if got := rec.RequestStart.Sub(t0); got != want.start {
		t.Errorf("request %d: request start %v, want %v", rec.Seq, got, want.start)
	}
	if want.target < 0 {
		return
	}
	dd, _ := rec.DispatchDelay()
	pd, _ := rec.TurnPredecessorDelay()
	sd, _ := rec.TurnSchedulingDelay()
	if pd != want.predecessor || sd != want.scheduling || dd != pd+sd {
		t.Errorf("request %d: dispatch %v = predecessor %v + scheduling %v; want %v + %v",
			rec.Seq, dd, pd, sd, want.predecessor, want.scheduling)
	}
}

func newTestConversations(t *testing.T, turns int, think time.Duration, history History) *Conversations {
	t.Helper()
	w, err := NewConversations(ConversationConfig{Turns: turns, ThinkTime: think, History: history,
		FirstPrompt: Fixed(6), FirstOutput: Fixed(4), Prompt: Fixed(3), Output: Fixed(2), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestConversationPredecessorAndThinkTime(t *testing.T) {
	clk := clock.NewFake(t0)
	ev, sched := newEvents(), &schedEvents{}
	be := newCtlBackend(clk)
	strategy, _ := NewConstant(1, 0) // slots at 0, 1 s, 2 s, ...
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: newTestConversations(t, 2, 500*time.Millisecond, HistoryFull),
		Backend: be, Observer: ev, Scheduler: sched, Clock: clk, MaxConcurrency: 2, MaxQueue: 4,
	})
	// Slot 0 (0 s): turn 1 of c0, sent at once. Slot 1 (1 s): turn 2 of c0,
	// held while turn 1 runs.
	waitFor(t, "turn 1 sent", func() bool { return be.sent() == 1 })
	waitFor(t, "slot 1 timer", func() bool { return clk.Pending() == 1 })
	clk.Advance(time.Second)
	waitFor(t, "slot 2 timer", func() bool { return clk.Pending() == 1 })
	// Turn 1 ends at 1.5 s; turn 2 thinks until 2 s. Slot 2 (2 s) begins c1.
	clk.Advance(500 * time.Millisecond)
	be.finish(0)
	waitFor(t, "think timer", func() bool { return clk.Pending() == 2 })
	clk.Advance(500 * time.Millisecond)
	waitFor(t, "turn 2 and c1 sent", func() bool { return be.sent() == 3 })
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	fin := bySeq(ev)
	if len(fin) != 3 {
		t.Fatalf("%d records, want 3", len(fin))
	}
	// Turn 2: targeted 1 s, sent 2 s: 1 s of dispatch delay, of which
	// 1.5 − 1 = 0.5 s waiting for turn 1 and 0.5 s of think time past the target.
	checkTiming(t, fin[0], timing{0, 0, 0, 0})
	checkTiming(t, fin[1], timing{time.Second, 2 * time.Second, 500 * time.Millisecond, 500 * time.Millisecond})
	checkTiming(t, fin[2], timing{2 * time.Second, 2 * time.Second, 0, 0})
	if got := fin[1].PredecessorDone.Sub(t0); got != 1500*time.Millisecond {
		t.Errorf("predecessor done at %v, want 1.5s", got)
	}
	for i, want := range []struct {
		id   string
		turn int
	}{{"c0", 1}, {"c0", 2}, {"c1", 1}} {
		if fin[i].ConversationID != want.id || fin[i].Turn != want.turn {
			t.Errorf("request %d: conversation %s turn %d, want %s turn %d", i, fin[i].ConversationID, fin[i].Turn, want.id, want.turn)
		}
	}
	// Full history: turn 1's prompt, a 3-word stand-in reply, turn 2's prompt.
	msgs := be.request(1).Messages
	if len(msgs) != 3 || msgs[0].Content != be.request(0).Messages[0].Content || msgs[1].Role != "assistant" ||
		len(splitWords(msgs[1].Content)) != 3 || be.request(1).PromptTokens != 6+3+3 {
		t.Errorf("turn 2 messages %+v (prompt tokens %d), want turn 1, a 3-word reply, turn 2 (12 tokens)", msgs, be.request(1).PromptTokens)
	}
	sched.mu.Lock()
	defer sched.mu.Unlock()
	// One think time (turn 2); one generation delay per conversation, 0 on a clock that does not move.
	if len(sched.thinks) != 1 || sched.thinks[0] != 500*time.Millisecond || len(sched.generations) != 2 || sched.generations[0] != 0 {
		t.Errorf("think times %v, generation delays %v; want [500ms], [0 0]", sched.thinks, sched.generations)
	}
}

func TestConcurrentStreamsWithRampup(t *testing.T) {
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := newCtlBackend(clk)
	strategy, _ := NewConcurrent(2, time.Second) // streams start at 0 and 500 ms
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 2,
	})
	waitFor(t, "stream 0 sent", func() bool { return be.sent() == 1 && clk.Pending() == 1 })
	// Request 0 ends at 200 ms: stream 0 sends again at once, before stream 1 starts.
	clk.Advance(200 * time.Millisecond)
	be.finish(0)
	waitFor(t, "stream 0 again", func() bool { return be.sent() == 2 })
	waitFor(t, "stream 1 timer", func() bool { return clk.Pending() == 1 })
	clk.Advance(300 * time.Millisecond)
	waitFor(t, "stream 1 started", func() bool { return be.sent() == 3 })
	// Request 2 (stream 1) ends at 700 ms: stream 1 sends request 3 then.
	clk.Advance(200 * time.Millisecond)
	be.finish(2)
	waitFor(t, "stream 1 again", func() bool { return be.sent() == 4 })
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	fin := bySeq(ev)
	for i, start := range []time.Duration{0, 200 * time.Millisecond, 500 * time.Millisecond, 700 * time.Millisecond} {
		checkTiming(t, fin[i], timing{target: -1, start: start})
	}
}

func TestSynchronousAndThroughput(t *testing.T) {
	throughput, _ := NewThroughput(2)
	tests := []struct {
		name     string
		strategy Strategy
		first    int // requests sent at once
	}{
		{"synchronous", NewSynchronous(), 1},
		{"throughput", throughput, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			ev := newEvents()
			be := newCtlBackend(clk)
			stop := startProber(t, ProberConfig{
				Target: "t", Strategy: tt.strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
				Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 2,
			})
			waitFor(t, "first requests", func() bool { return be.sent() == tt.first })
			// Nothing else goes out until one ends, at 1 s.
			clk.Advance(time.Second)
			be.finish(0)
			waitFor(t, "next request", func() bool { return be.sent() == tt.first+1 })
			_ = stop()
			fin := bySeq(ev)
			if len(fin) != tt.first+1 {
				t.Fatalf("%d records, want %d", len(fin), tt.first+1)
			}
			for i, rec := range fin {
				start := time.Duration(0)
				if i == tt.first {
					start = time.Second
				}
				checkTiming(t, rec, timing{target: -1, start: start})
			}
		})
	}
}

func TestClosedLoopConversationsPerStream(t *testing.T) {
	clk := clock.NewFake(t0)
	ev, sched := newEvents(), &schedEvents{}
	be := newCtlBackend(clk)
	strategy, _ := NewConcurrent(2, 0)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: newTestConversations(t, 2, time.Second, HistoryNewPrompt),
		Backend: be, Observer: ev, Scheduler: sched, Clock: clk, MaxConcurrency: 2,
	})
	waitFor(t, "both streams sent", func() bool { return be.sent() == 2 })
	// Stream 1's request (c1 turn 1) ends at 0: its next slot is c1 turn 2,
	// which thinks for 1 s.
	be.finish(1)
	waitFor(t, "think timer", func() bool { return clk.Pending() == 1 })
	clk.Advance(time.Second)
	waitFor(t, "turn 2 sent", func() bool { return be.sent() == 3 })
	_ = stop()
	fin := bySeq(ev)
	if got := fin[2]; got.ConversationID != "c1" || got.Turn != 2 {
		t.Errorf("request 2 is %s turn %d, want c1 turn 2", got.ConversationID, got.Turn)
	}
	checkTiming(t, fin[2], timing{target: -1, start: time.Second})
	// New prompt: only the turn's own message (3 tokens).
	if msgs := be.request(2).Messages; len(msgs) != 1 || be.request(2).PromptTokens != 3 {
		t.Errorf("turn 2 messages %+v, want its own prompt only", msgs)
	}
}

func TestReplayMovesTargetWithPriorTurn(t *testing.T) {
	// Rows: a single request at 0; turns 1 and 2 of conversation "a" at
	// 0.5 s and 1 s; time scale 2 makes those 1 s and 2 s.
	tr := &trace.Trace{File: "t.jsonl", Requests: []trace.Request{
		{Line: 1, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2},
		{Line: 2, Timestamp: 500 * time.Millisecond, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2, ConversationID: "a", Turn: 1},
		{Line: 3, Timestamp: time.Second, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2, ConversationID: "a", Turn: 2},
	}}
	strategy, _ := NewReplay(tr, 2, false)
	workload, _ := NewReplayWorkload(tr, 1)
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := newCtlBackend(clk)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: workload,
		Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 1, MaxQueue: 1,
	})
	waitFor(t, "row 0 sent", func() bool { return be.sent() == 1 && clk.Pending() == 1 })
	// 1 s: turn 1 is due but the only slot is busy: it queues.
	clk.Advance(time.Second)
	waitFor(t, "row 2 timer", func() bool { return clk.Pending() == 1 })
	// 1.5 s: row 0 ends, turn 1 is sent 0.5 s late.
	clk.Advance(500 * time.Millisecond)
	be.finish(0)
	waitFor(t, "turn 1 sent", func() bool { return be.sent() == 2 })
	// 2 s: turn 2's slot; it moves with turn 1 to 1.5 + (2 − 1) = 2.5 s, and
	// waits for turn 1, which ends at 3 s.
	clk.Advance(500 * time.Millisecond)
	waitFor(t, "turn 2 issued", func() bool { s, _, _, _ := ev.snapshot(); return s == 3 })
	clk.Advance(time.Second)
	be.finish(1)
	waitFor(t, "turn 2 sent", func() bool { return be.sent() == 3 })
	be.finish(2)
	if err := stop(); err != nil {
		t.Fatalf("Run after the trace ended: %v, want nil", err)
	}
	fin := bySeq(ev)
	checkTiming(t, fin[0], timing{0, 0, 0, 0})
	// Turn 1: 0.5 s late, all of it scheduling (queued).
	checkTiming(t, fin[1], timing{time.Second, 1500 * time.Millisecond, 0, 500 * time.Millisecond})
	// Turn 2: targeted 2.5 s, sent 3 s: 0.5 s waiting for turn 1.
	checkTiming(t, fin[2], timing{2500 * time.Millisecond, 3 * time.Second, 500 * time.Millisecond, 0})
}

func TestReplayRowWithoutTimestamp(t *testing.T) {
	tr := &trace.Trace{File: "t.jsonl", Requests: []trace.Request{
		{Line: 1, PromptTokens: 5, OutputTokens: 2},
		{Line: 2, Timestamp: 500 * time.Millisecond, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2},
	}}
	strategy, _ := NewReplay(tr, 1, false)
	workload, _ := NewReplayWorkload(tr, 1)
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := newCtlBackend(clk)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: workload, Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 2,
	})
	waitFor(t, "row 0 sent", func() bool { return be.sent() == 1 && clk.Pending() == 1 })
	clk.Advance(500 * time.Millisecond)
	waitFor(t, "row 1 sent", func() bool { return be.sent() == 2 })
	be.finish(0)
	be.finish(1)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	fin := bySeq(ev)
	// Row 0 falls back to the run's start and has no dispatch-delay quantities.
	checkTiming(t, fin[0], timing{target: -1, start: 0})
	checkTiming(t, fin[1], timing{500 * time.Millisecond, 500 * time.Millisecond, 0, 0})
	if be.request(1).MaxOutputTokens != 2 || be.request(1).PromptTokens != 5 {
		t.Errorf("row 1 request %+v, want 5 prompt and 2 output tokens", be.request(1))
	}
}

func TestDroppedTurnReleasesSuccessor(t *testing.T) {
	// No backlog and one slot: at 1 s, c0 turn 1 still runs, so c0 turn 2
	// waits; it ends at 1 s and turn 2 is sent. At 2 s turn 2 still runs:
	// c1 turn 1 is dropped (queue_full), and c1 turn 2 (slot 3 s) follows
	// without its predecessor: no history, no predecessor delay.
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := newCtlBackend(clk)
	strategy, _ := NewConstant(1, 0)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: newTestConversations(t, 2, 0, HistoryFull),
		Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 1,
	})
	waitFor(t, "c0 turn 1", func() bool { return be.sent() == 1 && clk.Pending() == 1 })
	clk.Advance(time.Second)
	waitFor(t, "slot 2 timer", func() bool { return clk.Pending() == 1 })
	be.finish(0)
	waitFor(t, "c0 turn 2", func() bool { return be.sent() == 2 })
	clk.Advance(time.Second)
	waitFor(t, "c1 turn 1 dropped", func() bool { _, _, d, _ := ev.snapshot(); return d[DropQueueFull] == 1 })
	waitFor(t, "slot 3 timer", func() bool { return clk.Pending() == 1 })
	be.finish(1)
	waitFor(t, "c0 turn 2 recorded", func() bool { _, _, _, f := ev.snapshot(); return len(f) == 2 })
	clk.Advance(time.Second)
	waitFor(t, "c1 turn 2", func() bool { return be.sent() == 3 })
	_ = stop()
	req := be.request(3)
	if req == nil || req.ConversationID != "c1" || req.Turn != 2 || len(req.Messages) != 1 {
		t.Fatalf("request 3 = %+v, want c1 turn 2 with its own prompt only", req)
	}
	fin := bySeq(ev)
	checkTiming(t, fin[1], timing{time.Second, time.Second, 0, 0})
	checkTiming(t, fin[2], timing{3 * time.Second, 3 * time.Second, 0, 0})
}

func TestNewProberRejectsStreamsBeyondCapacity(t *testing.T) {
	strategy, _ := NewConcurrent(5, 0)
	_, err := NewProber(ProberConfig{Target: "t", Strategy: strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: &fakeBackend{clk: clock.NewFake(t0)}, MaxConcurrency: 2, MaxQueue: 2})
	want := "strategy concurrent keeps 5 requests outstanding, more than max concurrency 2 plus max queue 2"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
