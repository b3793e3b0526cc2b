package probe

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/trace"
)

// TestConcurrentStreamsAtFullCapacityNeverDrop runs closed-loop streams that
// fill every concurrency slot and every queue place, and ends one request at
// a time, oldest first: each ending frees exactly one stream, which is
// issued once and finds a place; nothing is dropped.
func TestConcurrentStreamsAtFullCapacityNeverDrop(t *testing.T) {
	tests := []struct {
		name                  string
		streams, slots, queue int
		workload              func(t *testing.T) Workload
	}{
		{"8 = 4 + 4", 8, 4, 4, synthetic},
		{"6 = 2 + 4", 6, 2, 4, synthetic},
		{"3 = 2 + 1", 3, 2, 1, synthetic},
		{"3 = 2 + 1 with conversations", 3, 2, 1, func(t *testing.T) Workload {
			return newTestConversations(t, 3, 0, HistoryFull)
		}},
	}
	const rounds = 150
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			ev := newEvents()
			be := newCtlBackend(clk)
			strategy, _ := NewConcurrent(tt.streams, 0)
			stop := startProber(t, ProberConfig{
				Target: "t", Strategy: strategy, Workload: tt.workload(t),
				Backend: be, Observer: ev, Clock: clk, MaxConcurrency: tt.slots, MaxQueue: tt.queue,
			})
			waitFor(t, "every stream issued", func() bool { s, _, _, _ := ev.snapshot(); return s == tt.streams && be.sent() == tt.slots })
			// Requests leave the queue oldest first, so request r is the r-th
			// sent: ending it sends request r + slots and issues request r + streams.
			for r := range rounds {
				be.finish(uint64(r))
				waitFor(t, "the next request", func() bool {
					s, _, _, f := ev.snapshot()
					return len(f) == r+1 && s == tt.streams+r+1 && be.sent() == tt.slots+r+1
				})
			}
			_ = stop()
			sched, _, dropped, fin := ev.snapshot()
			// Every stream's request at the stop was either running (slots)
			// or queued (the rest): the queued ones are dropped at shutdown.
			if dropped[DropQueueFull] != 0 || dropped[DropShutdown] != tt.streams-tt.slots || sched != tt.streams+rounds {
				t.Errorf("scheduled %d, dropped %v; want %d scheduled, no queue_full, %d shutdown",
					sched, dropped, tt.streams+rounds, tt.streams-tt.slots)
			}
			// Each stream's conversation is whole: turns 1, 2, 3 in order.
			next := map[string]int{}
			for _, rec := range bySeq(ev)[:rounds] {
				if rec.ConversationID == "" {
					continue
				}
				if rec.Turn != next[rec.ConversationID]+1 {
					t.Errorf("request %d: %s turn %d after turn %d", rec.Seq, rec.ConversationID, rec.Turn, next[rec.ConversationID])
				}
				next[rec.ConversationID] = rec.Turn
			}
			if len(fin) != rounds+tt.slots {
				t.Errorf("%d records, want %d", len(fin), rounds+tt.slots)
			}
		})
	}
}

func synthetic(*testing.T) Workload { return NewSynthetic(Fixed(8), Fixed(4), 1) }

// failBackend fails every request at once with a connection error, at the
// clock's time, and counts them.
type failBackend struct {
	clk clock.Clock
	mu  sync.Mutex
	n   int
}

func (b *failBackend) Do(context.Context, *Request) *Record {
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
	now := b.clk.Now()
	return &Record{RequestStart: now, End: now, Outcome: Errored, ErrorType: ErrorConnection}
}

func (b *failBackend) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

func TestClosedLoopPausesAfterAnError(t *testing.T) {
	concurrent, _ := NewConcurrent(2, 0)
	throughput, _ := NewThroughput(3)
	tests := []struct {
		name     string
		strategy *Closed
		streams  int
	}{
		{"synchronous", NewSynchronous(), 1},
		{"concurrent", concurrent, 2},
		{"throughput", throughput, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.strategy.SetErrorBackoff(time.Second)
			clk := clock.NewFake(t0)
			be := &failBackend{clk: clk}
			stop := startProber(t, ProberConfig{
				Target: "t", Strategy: tt.strategy, Workload: synthetic(t),
				Backend: be, Clock: clk, MaxConcurrency: 3, MaxQueue: 0,
			})
			// Each stream fails at once, then waits 1 s: the clock does not
			// move, so nothing more is sent until it does.
			waitFor(t, "first failures and the backoff timer", func() bool { return be.count() == tt.streams && clk.Pending() == 1 })
			clk.Advance(999 * time.Millisecond)
			if got := be.count(); got != tt.streams {
				t.Fatalf("%d requests before the backoff ended, want %d", got, tt.streams)
			}
			// At 1 s every stream sends again, and fails again.
			clk.Advance(time.Millisecond)
			waitFor(t, "second failures", func() bool { return be.count() == 2*tt.streams && clk.Pending() == 1 })
			_ = stop()
			if got := be.count(); got != 2*tt.streams {
				t.Errorf("%d requests, want %d", got, 2*tt.streams)
			}
		})
	}
}

func TestClosedErrorBackoffZeroSendsAtOnce(t *testing.T) {
	s := NewSynchronous()
	s.SetErrorBackoff(0)
	s.Issue(0, s.Next(0))
	s.Completed(0, &Record{Outcome: Errored}, 2*time.Second)
	if d := s.Next(1); d != (Decision{Kind: Due, At: 2 * time.Second}) {
		t.Errorf("after an error without backoff: %+v, want due at 2s", d)
	}
}

// A request the prober could not carry out (out of file descriptors, say)
// pauses its stream like an error, though it is not the target's: an
// exhausted prober is not driven in a tight loop either.
func TestClosedBacksOffAfterProberFailure(t *testing.T) {
	s := NewSynchronous()
	s.SetErrorBackoff(2 * time.Second)
	s.Issue(0, s.Next(0))
	s.Completed(0, &Record{Outcome: Incomplete, ErrorType: ErrorProber}, time.Second)
	if d := s.Next(1); d != (Decision{Kind: Due, At: 3 * time.Second}) {
		t.Errorf("after a prober failure: %+v, want due at 3s", d)
	}
	s.Issue(1, s.Next(1))
	s.Completed(1, &Record{Outcome: Incomplete, ErrorType: ErrorCanceled}, 4*time.Second)
	if d := s.Next(2); d != (Decision{Kind: Due, At: 4 * time.Second}) {
		t.Errorf("after a cancellation: %+v, want due at 4s", d)
	}
}

func TestClosedPicksEarliestFreeStream(t *testing.T) {
	// Stream 0 errs at 1 s (free at 1 s + 2 s backoff = 3 s); stream 1 ends
	// well at 1.5 s: stream 1 goes first although stream 0 was freed first.
	s, _ := NewConcurrent(2, 0)
	s.SetErrorBackoff(2 * time.Second)
	s.Issue(0, s.Next(0))
	s.Issue(1, s.Next(1))
	s.Completed(0, &Record{Outcome: Errored}, time.Second)
	s.Completed(1, &Record{Outcome: Successful}, 1500*time.Millisecond)
	if d := s.Next(2); d != (Decision{Kind: Due, At: 1500 * time.Millisecond, Stream: 1}) {
		t.Fatalf("Next = %+v, want stream 1 at 1.5s", d)
	}
	s.Issue(2, s.Next(2))
	if d := s.Next(3); d != (Decision{Kind: Due, At: 3 * time.Second, Stream: 0}) {
		t.Errorf("Next = %+v, want stream 0 at 3s", d)
	}
}

func TestUntimedRowsWaitForASlot(t *testing.T) {
	// Row 0 at 0 s, then three rows without a timestamp. One slot and no
	// queue: the untimed rows are not dropped but wait for the slot, each
	// sent when the one before it ended (at 1 s, 2 s, 3 s).
	tr := &trace.Trace{File: "t.jsonl", Requests: []trace.Request{
		{Line: 1, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2},
		{Line: 2, PromptTokens: 5, OutputTokens: 2},
		{Line: 3, PromptTokens: 5, OutputTokens: 2},
		{Line: 4, PromptTokens: 5, OutputTokens: 2},
	}}
	strategy, _ := NewReplay(tr, 1, false)
	workload, _ := NewReplayWorkload(tr, 1)
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := newCtlBackend(clk)
	p, err := NewProber(ProberConfig{
		Target: "t", Strategy: strategy, Workload: workload, Backend: be, Observer: ev, Clock: clk,
		MaxConcurrency: 1, MaxQueue: 0,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.Run(context.Background()) }()
	waitFor(t, "row 0 sent", func() bool { return be.sent() == 1 })
	for seq := uint64(0); seq < 3; seq++ {
		clk.Advance(time.Second)
		be.finish(seq)
		waitFor(t, "the next row sent", func() bool { return be.sent() == int(seq)+2 })
	}
	be.finish(3)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_, _, dropped, _ := ev.snapshot()
	if len(dropped) != 0 {
		t.Errorf("dropped %v, want none", dropped)
	}
	fin := bySeq(ev)
	checkTiming(t, fin[0], timing{0, 0, 0, 0})
	for i := 1; i < 4; i++ {
		checkTiming(t, fin[i], timing{target: -1, start: time.Duration(i) * time.Second})
	}
}

func TestUntimedRowFollowsQueuedTimedRow(t *testing.T) {
	// One slot and one queue place. Row 1 (timed, 1 s) queues behind row 0;
	// row 2 (untimed) follows it in the file and must not overtake it.
	tr := &trace.Trace{File: "t.jsonl", Requests: []trace.Request{
		{Line: 1, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2},
		{Line: 2, Timestamp: time.Second, HasTimestamp: true, PromptTokens: 5, OutputTokens: 2},
		{Line: 3, PromptTokens: 5, OutputTokens: 2},
	}}
	strategy, _ := NewReplay(tr, 1, false)
	workload, _ := NewReplayWorkload(tr, 1)
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := newCtlBackend(clk)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: workload, Backend: be, Observer: ev, Clock: clk,
		MaxConcurrency: 1, MaxQueue: 1,
	})
	waitFor(t, "row 0 sent", func() bool { return be.sent() == 1 && clk.Pending() == 1 })
	clk.Advance(time.Second)
	waitFor(t, "row 1 queued", func() bool { s, _, _, _ := ev.snapshot(); return s >= 2 })
	be.finish(0)
	waitFor(t, "row 1 sent", func() bool { return be.sent() == 2 })
	if be.request(2) != nil {
		t.Fatal("row 2 was sent before row 1 ended")
	}
	clk.Advance(time.Second)
	be.finish(1)
	waitFor(t, "row 2 sent", func() bool { return be.sent() == 3 })
	be.finish(2)
	_ = stop()
	fin := bySeq(ev)
	checkTiming(t, fin[1], timing{time.Second, time.Second, 0, 0})
	checkTiming(t, fin[2], timing{-1, 2 * time.Second, 0, 0})
}

func TestLoopingUntimedTraceRepeatsAtOnce(t *testing.T) {
	tr := &trace.Trace{File: "t.jsonl", Requests: []trace.Request{
		{Line: 1, PromptTokens: 5, OutputTokens: 2},
		{Line: 2, PromptTokens: 5, OutputTokens: 2},
	}}
	r, err := NewReplay(tr, 1, true)
	if err != nil {
		t.Fatalf("NewReplay of an untimed looping trace: %v", err)
	}
	for n := uint64(0); n < 5; n++ {
		if d := r.Next(n); d != (Decision{Kind: Due, Unscheduled: true}) {
			t.Errorf("Next(%d) = %+v, want due untimed", n, d)
		}
	}
}

func TestThinkTimeRecordedWhenTheTurnIsSent(t *testing.T) {
	clk := clock.NewFake(t0)
	ev, sched := newEvents(), &schedEvents{}
	be := newCtlBackend(clk)
	strategy, _ := NewConstant(1, 0) // slots at 0, 1 s, 2 s, ...
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: newTestConversations(t, 2, 500*time.Millisecond, HistoryFull),
		Backend: be, Observer: ev, Scheduler: sched, Clock: clk, MaxConcurrency: 2, MaxQueue: 1,
	})
	thinks := func() int { sched.mu.Lock(); defer sched.mu.Unlock(); return len(sched.thinks) }
	waitFor(t, "turn 1 sent", func() bool { return be.sent() == 1 && clk.Pending() == 1 })
	// 1 s: turn 2's slot; it waits for turn 1, which ends at 1.5 s, then
	// thinks until 2 s. While it thinks, no think time is recorded.
	clk.Advance(time.Second)
	waitFor(t, "turn 2 issued", func() bool { s, _, _, _ := ev.snapshot(); return s == 2 && clk.Pending() == 1 })
	clk.Advance(500 * time.Millisecond)
	be.finish(0)
	waitFor(t, "think timer", func() bool { return clk.Pending() == 2 })
	if n := thinks(); n != 0 {
		t.Fatalf("%d think times recorded before turn 2 was sent, want 0", n)
	}
	clk.Advance(500 * time.Millisecond)
	waitFor(t, "turn 2 sent", func() bool { return be.request(1) != nil })
	waitFor(t, "think time recorded", func() bool { return thinks() == 1 })
	_ = stop()
}
