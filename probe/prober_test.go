package probe

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeBackend stamps RequestStart and End from the clock; when hold is set,
// each request waits for a value on release (or for ctx) before ending.
type fakeBackend struct {
	clk     clock.Clock
	hold    bool
	release chan struct{}
}

func (b *fakeBackend) Do(ctx context.Context, _ *Request) *Record {
	rec := &Record{RequestStart: b.clk.Now(), Outcome: Successful, OutputTokens: 1}
	if b.hold {
		select {
		case <-b.release:
		case <-ctx.Done():
			rec.Outcome, rec.ErrorType = Incomplete, ErrorCanceled
		}
	}
	rec.End = b.clk.Now()
	return rec
}

// events records observer calls.
type events struct {
	mu        sync.Mutex
	scheduled int
	started   int
	dropped   map[DropReason]int
	finished  []*Record
	states    []TargetState
	waited    []time.Duration
}

func newEvents() *events { return &events{dropped: map[DropReason]int{}} }

func (e *events) Scheduled(string) { e.mu.Lock(); e.scheduled++; e.mu.Unlock() }
func (e *events) Started(string)   { e.mu.Lock(); e.started++; e.mu.Unlock() }
func (e *events) Dropped(_ string, r DropReason) {
	e.mu.Lock()
	e.dropped[r]++
	e.mu.Unlock()
}
func (e *events) Finished(r *Record) { e.mu.Lock(); e.finished = append(e.finished, r); e.mu.Unlock() }
func (e *events) State(_ string, s TargetState, w time.Duration) {
	e.mu.Lock()
	e.states = append(e.states, s)
	e.waited = append(e.waited, w)
	e.mu.Unlock()
}

func (e *events) snapshot() (scheduled, started int, dropped map[DropReason]int, finished []*Record) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := map[DropReason]int{}
	for k, v := range e.dropped {
		d[k] = v
	}
	return e.scheduled, e.started, d, append([]*Record(nil), e.finished...)
}

// waitFor polls cond until it holds or a generous deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func startProber(t *testing.T, cfg ProberConfig) (cancel func() error) {
	t.Helper()
	p, err := NewProber(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	return func() error { stop(); return <-done }
}

func TestConstantSchedulesOnAbsoluteTimeline(t *testing.T) {
	clk := clock.NewFake(t0)
	ev := newEvents()
	strategy, _ := NewConstant(4, 0) // one request every 1/4 s = 250 ms
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: &fakeBackend{clk: clk}, Observer: ev, Clock: clk, MaxConcurrency: 2,
	})
	// Request 0 is due at once; each later one waits on a timer. Advancing in
	// uneven steps (100 ms, then 400 ms) must not shift later targets: request
	// 1 is due at 250 ms even though the clock jumps to 500 ms, and request 2
	// stays at 500 ms.
	waitFor(t, "request 0", func() bool { _, _, _, f := ev.snapshot(); return len(f) == 1 })
	waitFor(t, "timer", func() bool { return clk.Pending() == 1 })
	clk.Advance(100 * time.Millisecond)
	clk.Advance(400 * time.Millisecond)
	waitFor(t, "request 1", func() bool { _, _, _, f := ev.snapshot(); return len(f) >= 2 })
	waitFor(t, "request 2", func() bool { _, _, _, f := ev.snapshot(); return len(f) >= 3 })
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	_, _, _, fin := ev.snapshot()
	sort.Slice(fin, func(i, j int) bool { return fin[i].Seq < fin[j].Seq })
	wantTarget := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond}
	wantDelay := []time.Duration{0, 250 * time.Millisecond, 0} // request 1 sent at 500 ms, 250 ms late
	for i, want := range wantTarget {
		r := fin[i]
		if r.Seq != uint64(i) || r.TargetedStart.Sub(t0) != want {
			t.Errorf("request %d: seq %d targeted %v, want seq %d targeted %v", i, r.Seq, r.TargetedStart.Sub(t0), i, want)
		}
		if d, ok := r.DispatchDelay(); !ok || d != wantDelay[i] {
			t.Errorf("request %d: dispatch delay %v (%v), want %v", i, d, ok, wantDelay[i])
		}
	}
}

func TestQueueFullDropsAndQueuedWaitIsDispatchDelay(t *testing.T) {
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := &fakeBackend{clk: clk, hold: true, release: make(chan struct{})}
	strategy, _ := NewConstant(10, 0) // every 100 ms
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 1, MaxQueue: 1,
	})
	// t=0: request 0 takes the only slot. t=100ms: request 1 queues.
	// t=200ms: request 2 finds the queue full and is dropped.
	waitFor(t, "request 0 started", func() bool { _, s, _, _ := ev.snapshot(); return s == 1 })
	for i := 0; i < 2; i++ {
		waitFor(t, "timer", func() bool { return clk.Pending() == 1 })
		clk.Advance(100 * time.Millisecond)
	}
	waitFor(t, "drop", func() bool { _, _, d, _ := ev.snapshot(); return d[DropQueueFull] == 1 })
	// At t=250ms request 0 ends; request 1 leaves the queue then, 150 ms late.
	waitFor(t, "timer", func() bool { return clk.Pending() == 1 })
	clk.Advance(50 * time.Millisecond)
	be.release <- struct{}{}
	waitFor(t, "request 1 started", func() bool { _, s, _, _ := ev.snapshot(); return s == 2 })
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	sched, started, dropped, fin := ev.snapshot()
	if sched != 3 || started != 2 || dropped[DropQueueFull] != 1 || len(fin) != 2 {
		t.Fatalf("scheduled %d started %d dropped %v finished %d; want 3, 2, queue_full 1, 2", sched, started, dropped, len(fin))
	}
	r1 := fin[1]
	if d, _ := r1.DispatchDelay(); r1.Seq != 1 || d != 150*time.Millisecond {
		t.Errorf("request %d dispatch delay %v, want request 1 with 150ms", r1.Seq, d)
	}
	if r1.Outcome != Incomplete || r1.ErrorType != ErrorCanceled {
		t.Errorf("request in flight at shutdown: %s/%s, want incomplete/canceled", r1.Outcome, r1.ErrorType)
	}
}

func TestShutdownDropsQueuedRequests(t *testing.T) {
	clk := clock.NewFake(t0)
	ev := newEvents()
	be := &fakeBackend{clk: clk, hold: true, release: make(chan struct{})}
	strategy, _ := NewConstant(10, 0)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: be, Observer: ev, Clock: clk, MaxConcurrency: 1, MaxQueue: 5,
	})
	waitFor(t, "request 0 started", func() bool { _, s, _, _ := ev.snapshot(); return s == 1 })
	waitFor(t, "timer", func() bool { return clk.Pending() == 1 })
	clk.Advance(100 * time.Millisecond)
	waitFor(t, "request 1 scheduled", func() bool { s, _, _, _ := ev.snapshot(); return s == 2 })
	_ = stop()
	_, _, dropped, fin := ev.snapshot()
	if dropped[DropShutdown] != 1 || len(fin) != 1 || fin[0].Outcome != Incomplete {
		t.Fatalf("dropped %v finished %d; want shutdown 1 and one incomplete request", dropped, len(fin))
	}
}

func TestGateReportsWaitingFailedReady(t *testing.T) {
	clk := clock.NewFake(t0)
	ev := newEvents()
	var mu sync.Mutex
	calls := 0
	gate := &Gate{
		Interval: time.Second, StartupTimeout: 2 * time.Second,
		Check: func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls < 4 { // fails at 0 s, 1 s, 2 s; passes at 3 s
				return errors.New("not ready")
			}
			return nil
		},
	}
	strategy, _ := NewConstant(1, 0)
	stop := startProber(t, ProberConfig{
		Target: "t", Strategy: strategy, Workload: NewSynthetic(Fixed(8), Fixed(4), 1),
		Backend: &fakeBackend{clk: clk}, Observer: ev, Clock: clk, Gate: gate,
	})
	for i := 0; i < 3; i++ {
		waitFor(t, "gate timer", func() bool { return clk.Pending() == 1 })
		clk.Advance(time.Second)
	}
	waitFor(t, "first request", func() bool { _, _, _, f := ev.snapshot(); return len(f) == 1 })
	_ = stop()
	ev.mu.Lock()
	defer ev.mu.Unlock()
	want := []TargetState{StateWaiting, StateWaiting, StateWaiting, StateFailed, StateReady}
	wantWaited := []time.Duration{0, 0, time.Second, 2 * time.Second, 3 * time.Second}
	if len(ev.states) != len(want) {
		t.Fatalf("states %v, want %v", ev.states, want)
	}
	for i := range want {
		if ev.states[i] != want[i] || ev.waited[i] != wantWaited[i] {
			t.Errorf("state %d: %s after %v, want %s after %v", i, ev.states[i], ev.waited[i], want[i], wantWaited[i])
		}
	}
	// The schedule starts when the gate passes: request 0 is targeted at 3 s.
	if got := ev.finished[0].TargetedStart.Sub(t0); got != 3*time.Second {
		t.Errorf("first targeted start %v after t0, want 3s", got)
	}
}

func TestSyntheticPromptsAreUniqueAndSized(t *testing.T) {
	w := NewSynthetic(Fixed(20), Fixed(7), 42)
	seen := map[string]bool{}
	for n := uint64(0); n < 1000; n++ {
		r := w.Request(n)
		content := r.Messages[0].Content
		prefix := content[:len("probe ")+16]
		if seen[prefix] {
			t.Fatalf("prefix %q repeated at request %d", prefix, n)
		}
		seen[prefix] = true
		// "probe" + hex id + 18 words = 20 words.
		if got := len(splitWords(content)); got != 20 || r.PromptTokens != 20 || r.MaxOutputTokens != 7 {
			t.Fatalf("request %d: %d words, prompt tokens %d, max output %d; want 20, 20, 7", n, got, r.PromptTokens, r.MaxOutputTokens)
		}
	}
}

func splitWords(s string) []string {
	var out []string
	word := ""
	for _, c := range s {
		if c == ' ' {
			out = append(out, word)
			word = ""
			continue
		}
		word += string(c)
	}
	return append(out, word)
}
