package main

import (
	"log/slog"
	"sync"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// errorLogInterval is the least time between two log lines for the same
// target and error type; the lines in between are counted, not written.
const errorLogInterval = time.Minute

// logObserver writes what an operator needs to see in the logs: start-up gate
// changes with the last readiness failure, and errored requests, at most one
// line per target and error type per errorLogInterval.
type logObserver struct {
	logger *slog.Logger
	now    func() time.Time

	mu         sync.Mutex
	state      map[string]probe.TargetState
	gateErr    map[string]string
	gateLogged map[string]time.Time
	lastLogged map[errorKey]time.Time
	suppressed map[errorKey]int
}

type errorKey struct {
	target string
	typ    probe.ErrorType
}

func newLogObserver(logger *slog.Logger, now func() time.Time) *logObserver {
	return &logObserver{
		logger: logger, now: now,
		state: map[string]probe.TargetState{}, gateErr: map[string]string{}, gateLogged: map[string]time.Time{},
		lastLogged: map[errorKey]time.Time{}, suppressed: map[errorKey]int{},
	}
}

// readinessFailed remembers the last readiness failure of target, to be shown
// with its next state change, and logs it when its text changed or
// errorLogInterval has passed since it was last logged, so that a target
// waiting at its gate (a wrong port, a bad key) says why from the start.
func (l *logObserver) readinessFailed(target string, err error) {
	msg, now := err.Error(), l.now()
	l.mu.Lock()
	prev, last := l.gateErr[target], l.gateLogged[target]
	l.gateErr[target] = msg
	logIt := msg != prev || now.Sub(last) >= errorLogInterval
	if logIt {
		l.gateLogged[target] = now
	}
	l.mu.Unlock()
	if logIt {
		l.logger.Info("target not ready yet", "target", target, "error", msg)
	}
}

// Scheduled implements probe.Observer.
func (*logObserver) Scheduled(string) {}

// Dropped implements probe.Observer.
func (*logObserver) Dropped(string, probe.DropReason) {}

// Started implements probe.Observer.
func (*logObserver) Started(string) {}

// State implements probe.Observer: it logs each change of state.
func (l *logObserver) State(target string, state probe.TargetState, waited time.Duration) {
	l.mu.Lock()
	prev, lastErr := l.state[target], l.gateErr[target]
	l.state[target] = state
	l.mu.Unlock()
	if prev == state {
		return
	}
	switch state {
	case probe.StateWaiting:
		l.logger.Info("waiting for target to become ready", "target", target)
	case probe.StateFailed:
		l.logger.Warn("target did not become ready within its start-up timeout; still checking",
			"target", target, "waited", waited, "last_error", lastErr)
	case probe.StateReady:
		l.logger.Info("target ready; probing", "target", target, "waited", waited)
	}
}

// Finished implements probe.Observer: errored requests, and requests the
// prober could not carry out for want of a resource of its own, are
// logged, rate-limited.
func (l *logObserver) Finished(rec *probe.Record) {
	if !probe.Failed(rec.Outcome, rec.ErrorType) {
		return
	}
	k := errorKey{rec.Target, rec.ErrorType}
	now := l.now()
	l.mu.Lock()
	if last, ok := l.lastLogged[k]; ok && now.Sub(last) < errorLogInterval {
		l.suppressed[k]++
		l.mu.Unlock()
		return
	}
	n := l.suppressed[k]
	l.lastLogged[k], l.suppressed[k] = now, 0
	l.mu.Unlock()
	msg := "request errored"
	if rec.ErrorType == probe.ErrorProber {
		msg = "request not carried out: llmprober itself is out of a resource; not counted against the target"
	}
	l.logger.Warn(msg, "target", rec.Target, "error_type", rec.ErrorType,
		"http_status", rec.HTTPStatus, "error", rec.Error, "similar_errors_not_logged", n)
}
