package window

import (
	"slices"
	"time"
)

// gathered is what a snapshot reads from the store under its lock.
type gathered struct {
	origin time.Time
	// now and start are the window's bounds, in ns from the origin.
	now, start int64
	// approximate: a bucket of the window keeps only a sample; start is
	// then on the bucket grid.
	approximate bool
	// parts are the buckets' records, oldest bucket first.
	parts []part
	// ev sums the aggregates of the window's buckets (approximate only).
	ev aggregates
	// running are the start times of the requests in flight.
	running []time.Time
	// probes are the scheduler's counts of the window's buckets.
	probes Probes
	// codes is the store's error code table as of the gathering.
	codes codeTable
}

// part is one bucket's records and its counts by status.
type part struct {
	entries []entry
	seen    [numStatuses]int64
	// slo is a copy of the bucket's verdict counts.
	slo []sloCount
}

// gather reads window w at now; ok is false before the measure start.
func (s *Store) gather(now time.Time, w time.Duration) (g gathered, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g.running = append([]time.Time(nil), s.running...)
	g.codes = s.codes
	r := s.ring
	if r == nil || now.Before(r.origin) {
		return g, false
	}
	g.origin, g.now = r.origin, int64(now.Sub(r.origin))
	g.start = max(g.now-int64(w), 0)
	first, last := r.bucket(g.start), r.bucket(g.now)
	for n := first; n <= last && !g.approximate; n++ {
		if sl := r.get(n); sl != nil && sl.overflowed() {
			g.approximate = true
		}
	}
	if g.approximate {
		g.start = first * r.width
	}
	g.probes = r.probesSince(g.start, g.now)
	for n := first; n <= last; n++ {
		sl := r.get(n)
		if sl == nil {
			continue
		}
		if sl.total() > 0 {
			sl.shared = true
			g.parts = append(g.parts, part{entries: sl.kept, seen: sl.seen, slo: slices.Clone(sl.slo)})
		}
		if g.approximate && sl.ev != nil {
			g.ev.merge(sl.ev)
		}
	}
	return g, true
}
