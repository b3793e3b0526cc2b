package exporter

import (
	"sync"
	"time"
)

// LogLimiter decides which of a stream of repeated log lines to write: the
// first of each key at once, then at most one per Interval, counting the
// ones held back in between. It is safe for concurrent use; the zero
// value is not usable, use NewLogLimiter.
type LogLimiter[K comparable] struct {
	interval time.Duration
	now      func() time.Time

	mu   sync.Mutex
	last map[K]time.Time
	held map[K]int
}

// NewLogLimiter returns a LogLimiter letting one line of each key through
// per interval, reading now (time.Now when nil).
func NewLogLimiter[K comparable](interval time.Duration, now func() time.Time) *LogLimiter[K] {
	if now == nil {
		now = time.Now
	}
	return &LogLimiter[K]{interval: interval, now: now, last: map[K]time.Time{}, held: map[K]int{}}
}

// Allow reports whether a line of key k may be written now and, when it
// may, how many lines of k were held back since the last one written.
func (l *LogLimiter[K]) Allow(k K) (held int, ok bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if last, seen := l.last[k]; seen && now.Sub(last) < l.interval {
		l.held[k]++
		return 0, false
	}
	held = l.held[k]
	l.last[k], l.held[k] = now, 0
	return held, true
}

// Forget drops what l remembers of every key match accepts (the keys of
// a removed target, say), so that keys that never come back do not
// accumulate; a forgotten key's next line is written at once, without a
// held count.
func (l *LogLimiter[K]) Forget(match func(K) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.last {
		if match(k) {
			delete(l.last, k)
			delete(l.held, k)
		}
	}
}
