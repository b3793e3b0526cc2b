package probe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

// ProberConfig configures one target's prober.
type ProberConfig struct {
	// Target is the target's name; required.
	Target string
	// Strategy says when requests are due; required.
	Strategy Strategy
	// Workload makes each request; required.
	Workload Workload
	// Backend sends and measures each request; required.
	Backend Backend
	// Observer is told everything the prober does; default none.
	Observer Observer
	// Scheduler is told the generation delay of each conversation and the
	// think time of each later turn; default Observer, when it implements
	// SchedulerObserver (an Observers list passes the calls on to those of its
	// members that do).
	Scheduler SchedulerObserver
	// Clock is the one clock of this prober; default clock.Real().
	Clock clock.Clock
	// MaxConcurrency caps requests in flight; default 1.
	MaxConcurrency int
	// MaxQueue bounds the due requests waiting for a concurrency slot, which
	// are sent late as slots free up, oldest first; beyond it a due request
	// is dropped. 0 means a request that finds no free slot is dropped. A
	// later turn waiting for its predecessor or its think time holds no slot
	// and is not counted: it joins the queue when it is ready. A request
	// without an arrival time (Decision.Unscheduled) is not counted either:
	// it is issued only when a slot is free, and waits however long it takes.
	MaxQueue int
	// Gate is the start-up readiness gate; nil means probing starts at once.
	Gate *Gate
	// Logger; default discards.
	Logger *slog.Logger
}

// Prober sends one target's scheduled requests until its context ends.
//
// For each slot the strategy decides, the prober asks the workload for a
// request. A request that begins a conversation (every single-turn request)
// is sent at its slot time if a concurrency slot is free, waits in the
// bounded first-in first-out backlog otherwise, and is dropped when the
// backlog is full. A slot that frees up goes to the oldest waiting request. A later
// turn of a conversation is first held, without a concurrency slot, until
// its predecessor has ended and then for its think time; then it goes the
// same way. Its targeted start stays its slot time (moved with the prior turn
// under trace replay), so the wait for a predecessor still running after the
// target is its turn predecessor delay, and any further wait (think time past
// the target, the backlog) its turn scheduling delay; the two sum to its
// dispatch delay.
type Prober struct {
	cfg ProberConfig

	mu       sync.Mutex       // guards strategy, inflight, waiting, queued, convs
	inflight int              // requests holding a concurrency slot
	waiting  []*job           // requests waiting for a slot, oldest first
	queued   int              // those of them counted in MaxQueue
	convs    map[string]*link // the latest turn of each open conversation
	wake     chan struct{}
	started  time.Time
	wg       sync.WaitGroup // requests admitted and not yet recorded
	workers  *workers
}

// streamer is a strategy with a bounded number of outstanding requests.
type streamer interface{ Streams() int }

// NewProber checks cfg and fills its defaults.
func NewProber(cfg ProberConfig) (*Prober, error) {
	if cfg.Target == "" || cfg.Strategy == nil || cfg.Workload == nil || cfg.Backend == nil {
		return nil, errors.New("prober needs a target name, strategy, workload and backend")
	}
	if cfg.Observer == nil {
		cfg.Observer = Observers(nil)
	}
	if cfg.Scheduler == nil {
		cfg.Scheduler = noScheduler{}
		if s, ok := cfg.Observer.(SchedulerObserver); ok {
			cfg.Scheduler = s
		}
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	cfg.MaxConcurrency = max(cfg.MaxConcurrency, 1)
	cfg.MaxQueue = max(cfg.MaxQueue, 0)
	if s, ok := cfg.Strategy.(streamer); ok && s.Streams() > cfg.MaxConcurrency+cfg.MaxQueue {
		return nil, fmt.Errorf("strategy %s keeps %d requests outstanding, more than max concurrency %d plus max queue %d",
			cfg.Strategy.Name(), s.Streams(), cfg.MaxConcurrency, cfg.MaxQueue)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Prober{
		cfg:   cfg,
		convs: map[string]*link{},
		wake:  make(chan struct{}, 1),
	}, nil
}

// Run passes the start-up gate, then sends requests as the strategy says
// until ctx ends or the strategy stops. Requests in flight when ctx ends are
// cancelled and recorded as incomplete; Run returns after every request it
// started has been recorded. It returns ctx's error, or nil when the strategy stopped.
func (p *Prober) Run(ctx context.Context) error {
	if p.cfg.Gate != nil {
		if err := p.cfg.Gate.Wait(ctx, p.cfg.Target, p.cfg.Clock, p.cfg.Observer); err != nil {
			return err
		}
	} else {
		p.cfg.Observer.State(p.cfg.Target, StateReady, 0)
	}
	p.started = p.cfg.Clock.Now()
	p.workers = newWorkers()
	err := p.loop(ctx)
	p.wg.Wait()
	p.workers.stop()
	return err
}

// loop asks the strategy for each request in turn and issues it when due.
// A closed-loop strategy is asked again whenever a request ends while the
// prober waits, since a freed stream may be due before the awaited slot.
func (p *Prober) loop(ctx context.Context) error {
	var interrupt <-chan struct{}
	if !p.cfg.Strategy.HasSchedule() {
		interrupt = p.wake
	}
	for n := uint64(0); ; {
		p.mu.Lock()
		d := p.cfg.Strategy.Next(n)
		p.mu.Unlock()
		switch d.Kind {
		case Stop:
			return nil
		case AwaitCompletion:
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-p.wake:
			}
			continue
		}
		if d.Unscheduled {
			if err := p.awaitSlot(ctx); err != nil {
				return err
			}
		}
		slot := p.started.Add(d.At)
		woken, err := p.sleepUntil(ctx, slot, interrupt)
		if err != nil {
			return err
		}
		if woken {
			continue
		}
		p.mu.Lock()
		p.cfg.Strategy.Issue(n, d)
		p.mu.Unlock()
		p.issue(ctx, n, d, slot)
		n++
	}
}

// sleepUntil waits on the clock until t, or until ctx ends (its error), or
// until interrupt delivers (woken).
func (p *Prober) sleepUntil(ctx context.Context, t time.Time, interrupt <-chan struct{}) (woken bool, err error) {
	wait := t.Sub(p.cfg.Clock.Now())
	if wait <= 0 {
		return false, ctx.Err()
	}
	timer := p.cfg.Clock.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-interrupt:
		return true, nil
	case <-timer.C():
		return false, nil
	}
}

// awaitSlot waits until a concurrency slot is free and no request waits for
// one, or until ctx ends (its error): a request without an arrival time is
// issued only then, like a closed-loop request, and in its order.
func (p *Prober) awaitSlot(ctx context.Context) error {
	for !p.hasSlot() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.wake:
		}
	}
	return nil
}

// signal wakes the loop after a request ended or was dropped.
func (p *Prober) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}
