package probe

import (
	"context"
	"sync"
)

// workers sends requests on goroutines that, once their request has been
// recorded, wait for the next one instead of ending: at a steady rate the
// prober starts no goroutine per request, and a worker's stack, grown by
// the HTTP client, is reused. There are at most as many workers as
// requests were ever in flight at once; they end when stop is called.
type workers struct {
	jobs chan task     // unbuffered: a send succeeds only to an idle worker
	quit chan struct{} // closed by stop
	wg   sync.WaitGroup
}

// task is one request for a worker.
type task struct {
	ctx context.Context
	j   *job
}

// newWorkers returns a pool without workers.
func newWorkers() *workers {
	return &workers{jobs: make(chan task), quit: make(chan struct{})}
}

// run has t sent by an idle worker, or by a new one when none is idle.
func (w *workers) run(p *Prober, t task) {
	select {
	case w.jobs <- t:
		return
	default:
	}
	w.wg.Add(1)
	go w.work(p, t)
}

// work sends t, then every task handed to it, until stop.
func (w *workers) work(p *Prober, t task) {
	defer w.wg.Done()
	for {
		p.send(t.ctx, t.j)
		select {
		case t = <-w.jobs:
		case <-w.quit:
			return
		}
	}
}

// stop ends the idle workers and waits for them. Every request must have
// been recorded (Prober.wg) before: no task may be run after stop.
func (w *workers) stop() {
	close(w.quit)
	w.wg.Wait()
}
