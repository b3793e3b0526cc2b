package wiring

import (
	"log/slog"
	"sync"
	"time"

	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
)

// errorLogInterval is the least time between two log lines for the same
// target and error type; the lines in between are counted, not written.
const errorLogInterval = time.Minute

// LogObserver writes what an operator needs to see in the logs: start-up gate
// changes with the last readiness failure, errored requests, at most one
// line per target and error type per errorLogInterval, and dropped probes,
// at most one line per target and reason per errorLogInterval.
type LogObserver struct {
	logger *slog.Logger
	now    func() time.Time
	errors *exporter.LogLimiter[errorKey]
	drops  *exporter.LogLimiter[dropKey]

	mu         sync.Mutex
	state      map[string]probe.TargetState
	gateErr    map[string]string
	gateLogged map[string]time.Time
}

// errorKey is what an errored request's log line is limited by.
type errorKey struct {
	target string
	typ    probe.ErrorType
}

// dropKey is what a dropped probe's log line is limited by.
type dropKey struct {
	target string
	reason probe.DropReason
}

// NewLogObserver returns a log observer writing to logger, reading the time
// from now.
func NewLogObserver(logger *slog.Logger, now func() time.Time) *LogObserver {
	return &LogObserver{
		logger: logger, now: now,
		errors: exporter.NewLogLimiter[errorKey](errorLogInterval, now),
		drops:  exporter.NewLogLimiter[dropKey](errorLogInterval, now),
		state:  map[string]probe.TargetState{}, gateErr: map[string]string{}, gateLogged: map[string]time.Time{},
	}
}

// Forget drops what l remembers of target (state, last readiness failure,
// rate limits), once it was removed: a daemon whose targets come and go
// keeps only its current targets' entries.
func (l *LogObserver) Forget(target string) {
	l.errors.Forget(func(k errorKey) bool { return k.target == target })
	l.drops.Forget(func(k dropKey) bool { return k.target == target })
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.state, target)
	delete(l.gateErr, target)
	delete(l.gateLogged, target)
}

// readinessFailed remembers the last readiness failure of target, to be shown
// with its next state change, and logs it when its text changed or
// errorLogInterval has passed since it was last logged, so that a target
// waiting at its gate (a wrong port, a bad key) says why from the start.
func (l *LogObserver) readinessFailed(target string, err error) {
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
func (*LogObserver) Scheduled(string) {}

// Dropped implements probe.Observer: a drop for a full queue is logged,
// the first at once, then at most one line per target per
// errorLogInterval, each with the drops since the last line (itself
// included); drops at shutdown are expected and not logged.
func (l *LogObserver) Dropped(target string, reason probe.DropReason) {
	if reason == probe.DropShutdown {
		return
	}
	held, ok := l.drops.Allow(dropKey{target, reason})
	if !ok {
		return
	}
	l.logger.Warn("probes dropped: the backlog is full (max_queue); raise max_concurrency or max_queue, or lower the rate",
		"target", target, "reason", reason, "dropped_since_last_log", held+1)
}

// Started implements probe.Observer.
func (*LogObserver) Started(string) {}

// State implements probe.Observer: it logs each change of state.
func (l *LogObserver) State(target string, state probe.TargetState, waited time.Duration) {
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
func (l *LogObserver) Finished(rec *probe.Record) {
	if !probe.Failed(rec.Outcome, rec.ErrorType) {
		return
	}
	n, ok := l.errors.Allow(errorKey{rec.Target, rec.ErrorType})
	if !ok {
		return
	}
	attrs := []any{"target", rec.Target, "error_type", rec.ErrorType, "http_status", rec.HTTPStatus}
	if rec.ErrorCode.Kind != probe.CodeNone {
		attrs = append(attrs, "error_code", rec.ErrorCode.String())
	}
	attrs = append(attrs, "error", rec.Error)
	if rec.UsageInconsistent {
		attrs = append(attrs, "usage_inconsistent", true)
	}
	if rec.TokensClamped {
		attrs = append(attrs, "tokens_clamped", true)
	}
	msg := "request errored"
	if rec.ErrorType == probe.ErrorProber {
		msg = "request not carried out: llmprober itself is out of a resource; not counted against the target"
	}
	l.logger.Warn(msg, append(attrs, "similar_errors_not_logged", n)...)
}
