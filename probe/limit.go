package probe

import "time"

// Limited is a Strategy that stops once Max requests of its Strategy were
// sent: a finite run's request limit. A request dropped unsent (a full
// queue) does not count, so another is issued in its place; the requests
// sent run to their end, since a strategy that stops lets the prober wait
// for them.
type Limited struct {
	// Strategy decides every request.
	Strategy Strategy
	// Max is the number of requests sent at most; 0 sends none.
	Max uint64
	// dropped counts the requests dropped unsent so far.
	dropped uint64
}

var _ Strategy = (*Limited)(nil)

// Name implements Strategy: the wrapped strategy's name.
func (l *Limited) Name() string { return l.Strategy.Name() }

// HasSchedule implements Strategy: as the wrapped strategy.
func (l *Limited) HasSchedule() bool { return l.Strategy.HasSchedule() }

// Next implements Strategy: Stop once n − dropped reaches Max.
func (l *Limited) Next(n uint64) Decision {
	if n >= l.Max+l.dropped {
		return Decision{Kind: Stop}
	}
	return l.Strategy.Next(n)
}

// Issue implements Strategy.
func (l *Limited) Issue(n uint64, d Decision) { l.Strategy.Issue(n, d) }

// Completed implements Strategy: a request without a record was dropped.
func (l *Limited) Completed(n uint64, rec *Record, at time.Duration) {
	if rec == nil {
		l.dropped++
	}
	l.Strategy.Completed(n, rec, at)
}

// Streams returns the wrapped strategy's outstanding requests at most (0
// for an open-loop one), which the prober checks against its concurrency
// and queue.
func (l *Limited) Streams() int {
	if s, ok := l.Strategy.(streamer); ok {
		return s.Streams()
	}
	return 0
}
