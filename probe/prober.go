package probe

import (
	"context"
	"errors"
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
	// Clock is the one clock of this prober; default clock.Real().
	Clock clock.Clock
	// MaxConcurrency caps requests in flight; default 1.
	MaxConcurrency int
	// MaxQueue bounds the due requests waiting for a slot; beyond it a due
	// request is dropped. 0 means a request that finds no free slot is dropped.
	MaxQueue int
	// Gate is the start-up readiness gate; nil means probing starts at once.
	Gate *Gate
	// Logger; default discards.
	Logger *slog.Logger
}

// Prober sends one target's scheduled requests until its context ends.
type Prober struct {
	cfg   ProberConfig
	slots chan struct{}

	mu      sync.Mutex // guards strategy, queued
	queued  int
	wake    chan struct{}
	started time.Time
	wg      sync.WaitGroup
}

// NewProber checks cfg and fills its defaults.
func NewProber(cfg ProberConfig) (*Prober, error) {
	if cfg.Target == "" || cfg.Strategy == nil || cfg.Workload == nil || cfg.Backend == nil {
		return nil, errors.New("prober needs a target name, strategy, workload and backend")
	}
	if cfg.Observer == nil {
		cfg.Observer = Observers(nil)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	cfg.MaxConcurrency = max(cfg.MaxConcurrency, 1)
	cfg.MaxQueue = max(cfg.MaxQueue, 0)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Prober{
		cfg:   cfg,
		slots: make(chan struct{}, cfg.MaxConcurrency),
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
	err := p.loop(ctx)
	p.wg.Wait()
	return err
}

// loop asks the strategy for each request in turn and dispatches it when due.
func (p *Prober) loop(ctx context.Context) error {
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
		target := p.started.Add(d.At)
		if err := p.sleepUntil(ctx, target); err != nil {
			return err
		}
		p.dispatch(ctx, n, target)
		n++
	}
}

// sleepUntil waits on the clock until t, or until ctx ends.
func (p *Prober) sleepUntil(ctx context.Context, t time.Time) error {
	wait := t.Sub(p.cfg.Clock.Now())
	if wait <= 0 {
		return ctx.Err()
	}
	timer := p.cfg.Clock.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C():
		return nil
	}
}

// dispatch sends request n now if a slot is free, queues it if the backlog
// has room, and drops it otherwise.
func (p *Prober) dispatch(ctx context.Context, n uint64, target time.Time) {
	p.cfg.Observer.Scheduled(p.cfg.Target)
	req := p.cfg.Workload.Request(n)
	req.Seq = n
	if p.cfg.Strategy.HasSchedule() {
		req.TargetedStart = target
	}
	select {
	case p.slots <- struct{}{}:
		p.wg.Add(1)
		go p.send(ctx, req)
		return
	default:
	}
	p.mu.Lock()
	if p.queued >= p.cfg.MaxQueue {
		p.mu.Unlock()
		p.cfg.Observer.Dropped(p.cfg.Target, DropQueueFull)
		return
	}
	p.queued++
	p.mu.Unlock()
	p.wg.Add(1)
	go p.await(ctx, req)
}

// await holds a queued request until a slot frees up, then sends it.
func (p *Prober) await(ctx context.Context, req *Request) {
	select {
	case p.slots <- struct{}{}:
		p.dequeue()
		p.send(ctx, req)
	case <-ctx.Done():
		p.dequeue()
		p.cfg.Observer.Dropped(p.cfg.Target, DropShutdown)
		p.wg.Done()
	}
}

func (p *Prober) dequeue() {
	p.mu.Lock()
	p.queued--
	p.mu.Unlock()
}

// send performs one request in the slot it holds, records it, and frees the slot.
func (p *Prober) send(ctx context.Context, req *Request) {
	defer p.wg.Done()
	p.cfg.Observer.Started(p.cfg.Target)
	rec := p.cfg.Backend.Do(ctx, req)
	rec.Target = p.cfg.Target
	rec.Seq = req.Seq
	rec.TargetedStart = req.TargetedStart
	rec.PredecessorDone = req.PredecessorDone
	rec.ConversationID, rec.Turn = req.ConversationID, req.Turn
	<-p.slots
	p.mu.Lock()
	p.cfg.Strategy.Completed(rec, rec.End.Sub(p.started))
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
	if rec.Outcome == Errored {
		p.cfg.Logger.Debug("request errored", "target", p.cfg.Target, "seq", rec.Seq,
			"error_type", rec.ErrorType, "error", rec.Error)
	}
	p.cfg.Observer.Finished(rec)
}
