package window

import (
	"math"
	"math/rand/v2"
	"time"
)

// slot is one time bucket of a ring: the records that ended in it (all of
// them, or a uniform sample once it overflows) and the aggregates of the
// records that left a sample whose deciding event fell in it. Its counts
// are 32-bit, saturating (a bucket lasts at most a few seconds), so that a
// slot takes 96 bytes: a store keeps 722 of them whatever its rate.
type slot struct {
	// n is the absolute bucket number held; -1 when the slot is unused.
	n int64
	// seen counts the records that ended in the bucket, by status.
	seen [numStatuses]int32
	// shared is set while a snapshot may read kept: it is copied before
	// an element is replaced.
	shared bool
	// dirty is set when kept changed (or the slot was recycled) since the
	// store's index last read it.
	dirty bool
	// differ has the bits of the aliases whose metrics differ in a record
	// that ended in the bucket (entry.differs).
	differ uint8
	// kept is the sample: every record until more than k ended here.
	kept []entry
	// ev aggregates evicted records by event time; nil when none.
	ev *aggregates
	// slo counts the verdicts of every record that ended in the bucket,
	// one per objective set.
	slo []sloCount
	// probes counts the scheduler's events in the bucket.
	probes slotProbes
}

// slotProbes are a slot's counts of the scheduler's events (see Probes):
// dropped is nil until a drop, then one count per probe.DropReasons.
type slotProbes struct {
	scheduled, sent int32
	dropped         *[]int64
}

// incr adds one to a slot's count, saturating.
func incr(n *int32) {
	if *n < math.MaxInt32 {
		*n++
	}
}

// seenCounts returns the records that ended in the bucket, by status.
func (s *slot) seenCounts() [numStatuses]int64 {
	return [numStatuses]int64{int64(s.seen[0]), int64(s.seen[1]), int64(s.seen[2])}
}

// total returns the number of records that ended in the bucket.
func (s *slot) total() int64 { return int64(s.seen[0]) + int64(s.seen[1]) + int64(s.seen[2]) }

// overflowed reports whether the bucket keeps only a sample.
func (s *slot) overflowed() bool { return s.total() > int64(len(s.kept)) }

// aggregates are the exact contributions of evicted records.
type aggregates struct {
	// m holds each metric's values by status, filed under the bucket of
	// the event that decides the metric's inclusion.
	m [numMetrics][numStatuses]moments
	// output and prompt are tokens by status, by token event time.
	output, prompt [numStatuses]float64
	// busy is the time in flight in the bucket, in seconds.
	busy float64
}

// merge adds o to a.
func (a *aggregates) merge(o *aggregates) {
	for m := range a.m {
		for s := range a.m[m] {
			a.m[m][s].merge(o.m[m][s])
		}
	}
	for s := range a.output {
		a.output[s] += o.output[s]
		a.prompt[s] += o.prompt[s]
	}
	a.busy += o.busy
}

// ring holds the buckets of one store. Bucket n covers the instants
// [n·width, (n+1)·width) from the origin; slot n mod nslots holds it while
// it is recent. The slots are allocated in chunks of slotChunk as buckets
// first reach them, so a store that has not yet run for its longest window
// holds only the slots it used (a slot costs 96 bytes, 69 kB for 722).
type ring struct {
	origin time.Time
	width  int64 // ns
	k      int   // records kept per bucket
	nslots int
	chunks []*[slotChunk]slot // nil until one of its slots is created
	head   int64              // the newest bucket created
	rng    *rand.Rand
	nobj   int // objective sets
}

// slotChunk is the number of slots allocated at once: 32 slots take
// 3072 bytes, a whole size class of the Go allocator.
const slotChunk = 32

// newRing returns an empty ring whose buckets cover longest with room for
// its misalignment on the grid.
func newRing(origin time.Time, longest time.Duration, sampleCap, objectives int, seed uint64) *ring {
	width := max(int64(longest)/Buckets, 1)
	n := (int64(longest)+width-1)/width + 2
	return &ring{
		origin: origin, width: width, k: max(sampleCap/Buckets, 1), nslots: int(n),
		chunks: make([]*[slotChunk]slot, (n+slotChunk-1)/slotChunk),
		head:   -1, rng: rand.New(rand.NewPCG(seed, uint64(width))), nobj: objectives,
	}
}

// slot returns slot i, or nil when its chunk is not allocated.
func (r *ring) slot(i int) *slot {
	c := r.chunks[i/slotChunk]
	if c == nil {
		return nil
	}
	return &c[i%slotChunk]
}

// allocSlot returns slot i, allocating its chunk (of unused slots).
func (r *ring) allocSlot(i int) *slot {
	c := r.chunks[i/slotChunk]
	if c == nil {
		c = new([slotChunk]slot)
		for j := range c {
			c[j].n = -1
		}
		r.chunks[i/slotChunk] = c
	}
	return &c[i%slotChunk]
}

// bucket returns the bucket of instant t (rounding down; negative before
// the origin).
func (r *ring) bucket(t int64) int64 { return bucketOf(t, r.width) }

// oldest returns the oldest bucket still held.
func (r *ring) oldest() int64 { return max(r.head-int64(r.nslots)+1, 0) }

// slotOf returns the index of the slot that holds bucket n ≥ 0 while it is
// recent.
func (r *ring) slotOf(n int64) int { return int(n % int64(r.nslots)) }

// get returns the slot holding bucket n, or nil.
func (r *ring) get(n int64) *slot {
	if n < 0 {
		return nil
	}
	s := r.slot(r.slotOf(n))
	if s == nil || s.n != n {
		return nil
	}
	return s
}

// create returns the slot for bucket n, recycling an older one; nil when n
// is before the origin or older than the ring holds.
func (r *ring) create(n int64) *slot {
	if n < 0 || n < r.oldest() {
		return nil
	}
	s := r.allocSlot(r.slotOf(n))
	switch {
	case s.n == n:
		return s
	case s.n > n:
		return nil
	}
	*s = slot{n: n, dirty: true}
	if r.nobj > 0 {
		s.slo = make([]sloCount, r.nobj)
	}
	r.head = max(r.head, n)
	return s
}

// add files e by its end; once its bucket is full, by reservoir sampling,
// with the record that leaves the sample folded into the aggregates.
func (r *ring) add(e entry) {
	s := r.create(r.bucket(e.end))
	if s == nil {
		return
	}
	incr(&s.seen[e.status])
	s.dirty = true
	s.differ |= e.differs()
	countSLO(s.slo, &e)
	if len(s.kept) < r.k {
		if len(s.kept) == cap(s.kept) {
			grown := make([]entry, len(s.kept), min(max(2*cap(s.kept), 1), r.k))
			copy(grown, s.kept)
			s.kept, s.shared = grown, false
		}
		s.kept = append(s.kept, e)
		return
	}
	j := r.rng.Int64N(s.total())
	if j >= int64(len(s.kept)) {
		r.evict(&e)
		return
	}
	if s.shared {
		s.kept = append([]entry(nil), s.kept...)
		s.shared = false
	}
	old := s.kept[j]
	s.kept[j] = e
	r.evict(&old)
}

// aggregatesAt returns the aggregates of the bucket holding instant t,
// creating them; nil when t is absent or outside the ring.
func (r *ring) aggregatesAt(t int64) *aggregates {
	if t == absent {
		return nil
	}
	s := r.create(r.bucket(t))
	if s == nil {
		return nil
	}
	if s.ev == nil {
		s.ev = &aggregates{}
	}
	return s.ev
}

// evict folds e's contributions into the aggregates of the buckets of its
// events.
func (r *ring) evict(e *entry) {
	vs, ok := e.values()
	for m := range numMetrics {
		if !ok[m] {
			continue
		}
		t := e.eventTime(Metric(m))
		if a := r.aggregatesAt(t); a != nil {
			a.m[m][e.status].add(vs[m].v, vs[m].w)
			if t > e.end { // a bucket newer than the end's, which outlives it
				r.get(r.bucket(t)).differ |= e.differs()
			}
		}
	}
	output, prompt := e.tokens()
	from, to := e.tokenSpan()
	if a := r.aggregatesAt(from); a != nil {
		a.prompt[e.status] += float64(prompt)
	}
	r.spread(from, to, func(a *aggregates, share float64) { a.output[e.status] += float64(output) * share })
	from, to = e.busySpan()
	if to > from {
		r.spread(from, to, func(a *aggregates, share float64) {
			a.busy += share * float64(to-from) / float64(time.Second)
		})
	}
}

// spread calls add for each held bucket that [from, to] overlaps, with the
// share of the span inside it; a span of no length is one point.
func (r *ring) spread(from, to int64, add func(a *aggregates, share float64)) {
	if from == absent || to == absent {
		return
	}
	if to <= from {
		if a := r.aggregatesAt(from); a != nil {
			add(a, 1)
		}
		return
	}
	for n := max(r.bucket(from), r.oldest()); n <= r.bucket(to); n++ {
		lo, hi := max(from, n*r.width), min(to, (n+1)*r.width)
		if hi <= lo {
			continue
		}
		if a := r.aggregatesAt(n * r.width); a != nil {
			add(a, float64(hi-lo)/float64(to-from))
		}
	}
}
