package window

import (
	"slices"
	"sync"
	"time"
)

// capture is what a set of snapshots reads from the store under its lock,
// in time proportional to the number of buckets.
type capture struct {
	// ok is false before measuring was scheduled (no ring yet).
	ok     bool
	origin time.Time
	width  int64 // bucket width, ns
	// views are the ring's slots, in slot order.
	views []view
	// dirty lists the slots that changed since the index last read them.
	dirty []int
	// running are the start times of the requests in flight.
	running []time.Time
	// codes is the store's error code table as of the capture.
	codes codeTable
	// differ has the bits of the aliases whose metrics differ in a record
	// held (slot.differ of every slot).
	differ uint8
}

// gathered is what one window reads of a capture.
type gathered struct {
	// ok is false before the measure start.
	ok     bool
	origin time.Time
	// now and start are the window's bounds, in ns from the origin, and
	// first and last the buckets they fall in; horizon (≥ now) is the
	// last end of a request counted, in bucket final (see
	// Store.SnapshotSpan; now and last otherwise).
	now, start, first, last int64
	horizon, final          int64
	// approximate: a bucket of the window keeps only a sample; start is
	// then on the bucket grid.
	approximate bool
	// parts are the buckets' records, oldest bucket first.
	parts []part
	// ev sums the aggregates of the window's buckets (approximate only).
	ev aggregates
	// probes are the scheduler's counts of the window's buckets.
	probes Probes
}

// part is one bucket's records and its counts by status.
type part struct {
	// n is the bucket, and slot the slot holding it.
	n       int64
	slot    int
	entries []entry
	seen    [numStatuses]int64
	// slo is a copy of the bucket's verdict counts.
	slo []sloCount
	// weight is the number of the bucket's records of each status that
	// one kept record of that status stands for (seen ÷ kept; 1 while
	// nothing was sampled). Set by the accumulator.
	weight [numStatuses]float64
}

// capture reads the store for windows ws at now. The slots' kept records
// are marked shared, so the ring copies them before replacing one, and
// their dirty marks move to the capture: the caller must update the index
// with it.
func (s *Store) capture(now time.Time, ws []time.Duration) (c capture, gs []gathered) {
	return s.captureBy(len(ws), func(r *ring, i int) gathered { return r.gather(now, ws[i]) })
}

// captureBy reads the store for n windows, window i as read(ring, i)
// returns it, as capture does. The capture's dirty list is the index's
// buffer (the index's mutex must be held while the capture is used) and
// its views a pooled one, for c.release.
func (s *Store) captureBy(n int, read func(r *ring, i int) gathered) (c capture, gs []gathered) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.running = slices.Clone(s.running)
	gs = make([]gathered, n)
	c.codes = s.codes
	r := s.ring
	if r == nil {
		return c, gs
	}
	c.ok, c.origin, c.width = true, r.origin, r.width
	c.views, c.dirty = getViews(r.nslots), s.index.dirty[:0]
	for i := range r.nslots {
		sl := r.slot(i)
		if sl == nil {
			c.views[i] = view{n: -1}
			continue
		}
		c.views[i] = view{n: sl.n, entries: sl.kept, seen: sl.seenCounts()}
		c.differ |= sl.differ
		sl.shared = true
		if sl.dirty {
			c.dirty = append(c.dirty, i)
			sl.dirty = false
		}
	}
	s.index.dirty = c.dirty
	for i := range gs {
		gs[i] = read(r, i)
	}
	return c, gs
}

// viewsPool holds the buffers of the captures' views, shared between
// stores: a store at a low rate does not keep one of its own.
var viewsPool sync.Pool

// getViews returns a buffer of n views.
func getViews(n int) []view {
	if p, ok := viewsPool.Get().(*[]view); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]view, n)
}

// release returns the capture's views to the pool, without the
// references they hold to the store's records.
func (c *capture) release() {
	if c.views == nil {
		return
	}
	clear(c.views)
	v := c.views[:0]
	viewsPool.Put(&v)
	c.views = nil
}

// gather reads window w at now; ok is false before the measure start. The
// parts' entries must be marked shared (capture does).
func (r *ring) gather(now time.Time, w time.Duration) (g gathered) {
	if now.Before(r.origin) {
		return g
	}
	g.ok, g.origin, g.now = true, r.origin, int64(now.Sub(r.origin))
	g.start = max(g.now-int64(w), 0)
	g.horizon = g.now
	r.fill(&g)
	return g
}

// gatherSpan reads the window [from, end] at now ≥ end: from is clipped to
// the measure start and to the start of the oldest bucket held, and the
// requests that ended after end, by now, are read too; ok is false when
// end precedes the measure start. An approximate window reads none of
// them (its horizon is end).
func (r *ring) gatherSpan(from, end, now time.Time) (g gathered) {
	if end.Before(r.origin) {
		return g
	}
	g.ok, g.origin, g.now = true, r.origin, int64(end.Sub(r.origin))
	g.horizon = max(int64(now.Sub(r.origin)), g.now)
	g.start = min(max(int64(from.Sub(r.origin)), r.oldest()*r.width, 0), g.now)
	r.fill(&g)
	return g
}

// fill reads the buckets of window g, whose bounds and horizon are set.
func (r *ring) fill(g *gathered) {
	g.first, g.last = r.bucket(g.start), r.bucket(g.now)
	for n := g.first; n <= g.last && !g.approximate; n++ {
		if sl := r.get(n); sl != nil && sl.overflowed() {
			g.approximate = true
		}
	}
	if g.approximate {
		g.start, g.horizon = g.first*r.width, g.now
	}
	g.final = r.bucket(g.horizon)
	g.probes = r.probesSince(g.start, g.now)
	slo := make([]sloCount, 0, int64(r.nobj)*max(g.final-g.first+1, 0)) // the parts' verdict counts
	for n := g.first; n <= g.final; n++ {
		sl := r.get(n)
		if sl == nil {
			continue
		}
		if sl.total() > 0 {
			from := len(slo)
			slo = append(slo, sl.slo...)
			g.parts = append(g.parts, part{n: n, slot: r.slotOf(n), entries: sl.kept, seen: sl.seenCounts(), slo: slo[from:len(slo):len(slo)]})
		}
		if g.approximate && sl.ev != nil {
			g.ev.merge(sl.ev)
		}
	}
}
