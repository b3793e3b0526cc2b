package probe

import (
	"context"
	"time"
)

// job is one issued request on its way to being sent.
type job struct {
	n    uint64
	req  *Request
	turn Turn
	slot time.Time // the strategy's slot time (before any move with the prior turn)
	pred *link     // the conversation's previous turn; nil for a first turn
	self *link     // this turn, for its successor; nil for a last turn
	// untimed marks a request without an arrival time (a trace row without
	// a timestamp): it waits for a slot however long the queue, and is not
	// counted in max_queue.
	untimed bool
}

// link is one turn of a conversation as its successor sees it. Its fields
// are written before done is closed and read only after.
type link struct {
	done   chan struct{}
	rec    *Record   // nil when the turn was dropped unsent
	end    time.Time // when the turn ended or was dropped
	slot   time.Time // its slot time
	target time.Time // its targeted start, as finally set; zero when none
}

// resolve records how the turn ended and releases its successor.
func (l *link) resolve(rec *Record, end time.Time) {
	l.rec, l.end = rec, end
	close(l.done)
}

// issue asks the workload for request n and sends it on its way: at once
// when nothing holds it, else through follow.
func (p *Prober) issue(ctx context.Context, n uint64, d Decision, slot time.Time) {
	p.cfg.Observer.Scheduled(p.cfg.Target)
	before := p.cfg.Clock.Now()
	t := p.cfg.Workload.Turn(n, d.Stream)
	if t.First {
		p.cfg.Scheduler.GenerationDelay(p.cfg.Target, p.cfg.Clock.Now().Sub(before))
	}
	j := &job{n: n, req: t.Request, turn: t, slot: slot, untimed: d.Unscheduled}
	j.req.Seq = n
	if p.cfg.Strategy.HasSchedule() && !d.Unscheduled {
		j.req.TargetedStart = slot
	}
	if id := j.req.ConversationID; id != "" {
		p.chain(id, j)
	}
	if j.pred == nil && t.Think == 0 {
		p.admit(ctx, j)
		return
	}
	p.wg.Add(1)
	go p.follow(ctx, j)
}

// chain links j to its conversation's previous turn and makes it the
// conversation's latest.
func (p *Prober) chain(id string, j *job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !j.turn.First {
		j.pred = p.convs[id]
	}
	if j.turn.Last {
		delete(p.convs, id)
		return
	}
	j.self = &link{done: make(chan struct{}), slot: j.slot}
	p.convs[id] = j.self
}

// follow holds a later turn until its predecessor has ended and its think
// time has passed, then admits it.
func (p *Prober) follow(ctx context.Context, j *job) {
	defer p.wg.Done()
	notBefore := j.slot
	if j.pred != nil {
		select {
		case <-j.pred.done:
		case <-ctx.Done():
			p.drop(j, DropShutdown)
			return
		}
		p.afterPredecessor(j)
		notBefore = later(notBefore, j.pred.end.Add(j.turn.Think))
	}
	notBefore = later(notBefore, j.req.TargetedStart)
	if _, err := p.sleepUntil(ctx, notBefore, nil); err != nil {
		p.drop(j, DropShutdown)
		return
	}
	p.admit(ctx, j)
}

// afterPredecessor moves a relative turn's target with the prior turn,
// records when the predecessor ended if that was after the target, and lets
// the workload finish the request.
func (p *Prober) afterPredecessor(j *job) {
	pred := j.pred
	if j.turn.Relative && !j.req.TargetedStart.IsZero() && !pred.target.IsZero() {
		base := pred.target
		if pred.rec != nil && !pred.rec.RequestStart.IsZero() {
			base = pred.rec.RequestStart
		}
		if moved := base.Add(j.slot.Sub(pred.slot)); moved.After(j.req.TargetedStart) {
			j.req.TargetedStart = moved
		}
	}
	if !j.req.TargetedStart.IsZero() && pred.end.After(j.req.TargetedStart) {
		j.req.PredecessorDone = pred.end
	}
	if j.turn.Prepare != nil {
		j.turn.Prepare(pred.rec)
	}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// admit sends j now if a concurrency slot is free and no request waits
// for one; otherwise it queues j behind the waiting requests, unless j
// counts in max_queue and the queue is full: then it drops j.
func (p *Prober) admit(ctx context.Context, j *job) {
	if j.self != nil {
		j.self.target = j.req.TargetedStart
	}
	p.mu.Lock()
	switch {
	case p.inflight < p.cfg.MaxConcurrency && len(p.waiting) == 0:
		p.inflight++
		p.mu.Unlock()
		p.wg.Add(1)
		p.workers.run(p, task{ctx, j})
	case !j.untimed && p.queued >= p.cfg.MaxQueue:
		p.mu.Unlock()
		p.drop(j, DropQueueFull)
	default:
		if !j.untimed {
			p.queued++
		}
		p.waiting = append(p.waiting, j)
		p.mu.Unlock()
	}
}

// release hands the slot of a request that ended to the oldest waiting
// request, or frees it when none waits. Once ctx has ended, waiting requests
// are dropped instead of sent.
func (p *Prober) release(ctx context.Context) {
	for {
		p.mu.Lock()
		if len(p.waiting) == 0 {
			p.inflight--
			p.mu.Unlock()
			return
		}
		j := p.waiting[0]
		p.waiting[0] = nil
		p.waiting = p.waiting[1:]
		if !j.untimed {
			p.queued--
		}
		p.mu.Unlock()
		if ctx.Err() == nil {
			p.wg.Add(1)
			p.workers.run(p, task{ctx, j})
			return
		}
		p.drop(j, DropShutdown)
	}
}

// hasSlot reports whether a request admitted now would be sent at once.
func (p *Prober) hasSlot() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inflight < p.cfg.MaxConcurrency && len(p.waiting) == 0
}

// drop counts j as never sent, frees its stream and releases its successor.
func (p *Prober) drop(j *job, reason DropReason) {
	p.cfg.Observer.Dropped(p.cfg.Target, reason)
	now := p.cfg.Clock.Now()
	p.mu.Lock()
	p.cfg.Strategy.Completed(j.n, nil, now.Sub(p.started))
	p.mu.Unlock()
	if j.self != nil {
		j.self.resolve(nil, now)
	}
	p.signal()
}

// send performs one request in the slot it holds, records it, and frees the slot.
func (p *Prober) send(ctx context.Context, j *job) {
	defer p.wg.Done()
	req := j.req
	if !j.turn.First && j.turn.Think > 0 {
		p.cfg.Scheduler.ThinkTime(p.cfg.Target, j.turn.Think)
	}
	p.cfg.Observer.Started(p.cfg.Target)
	rec := p.cfg.Backend.Do(ctx, req)
	rec.Target = p.cfg.Target
	rec.Seq = req.Seq
	rec.TargetedStart = req.TargetedStart
	rec.PredecessorDone = req.PredecessorDone
	rec.ConversationID, rec.Turn = req.ConversationID, req.Turn
	p.release(ctx)
	end := rec.End
	if end.IsZero() {
		end = p.cfg.Clock.Now()
	}
	p.mu.Lock()
	p.cfg.Strategy.Completed(j.n, rec, end.Sub(p.started))
	p.mu.Unlock()
	p.signal()
	if rec.Outcome == Errored {
		p.cfg.Logger.Debug("request errored", "target", p.cfg.Target, "seq", rec.Seq,
			"error_type", rec.ErrorType, "error", rec.Error)
	}
	p.cfg.Observer.Finished(rec)
	if j.self != nil {
		j.self.resolve(rec, end)
	}
}
