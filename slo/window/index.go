package window

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// elem is one defined value of a metric in the index, in 16 bytes: the
// value and where its record is kept.
type elem struct {
	v float64
	// aux is the token weight of a weighted metric; for a metric decided
	// by an event other than the end (TTFT, TTFOT, dispatch delay,
	// scheduled latency), the number of buckets between that event and the
	// end, or lagUnknown when the event came after the end; else 0.
	aux uint32
	// ref is the record's slot and its position in the slot's kept
	// records: slot<<refSlotShift | position.
	ref uint32
}

const (
	refPosBits   = 16
	refSlotShift = refPosBits
	// lagUnknown marks an event after the record's end: such an element
	// is always checked against its record.
	lagUnknown = math.MaxUint32
)

func (x elem) pos() int  { return int(x.ref & (1<<refPosBits - 1)) }
func (x elem) slot() int { return int(x.ref >> refSlotShift) }

// timedByEnd reports whether metric m counts in a window by its record's
// end (the request-level quantities, ITL and TPOT), as entry.eventTime says.
func timedByEnd(m Metric) bool {
	switch m {
	case TTFT, TTFOT, DispatchDelay, ScheduledLatency:
		return false
	}
	return true
}

// view is one slot as a snapshot reads it: the bucket it holds (-1 when
// unused), its kept records (a slice the ring no longer writes into: see
// slot.shared) and its counts by status.
type view struct {
	n       int64
	entries []entry
	seen    [numStatuses]int64
}

// valueIndex keeps, for each metric and status, the defined values of every
// record the ring keeps, in ascending order, so that a snapshot reads each window's
// values in order instead of sorting them. It is brought up to date at
// each snapshot from the slots that changed since the last one, in
// O(n + c log c) for n values of which c changed. Its mutex also
// serializes the snapshots' computations, which share its buffers.
// maxBatch is the largest batch an index keeps for the next update, in
// values: a scrape's worth at a high rate.
const maxBatch = 8192

type valueIndex struct {
	mu     sync.Mutex
	sorted ordered
	batch  [numMetrics][numStatuses][]elem // scratch: the changed slots' values
	stale  []bool                          // scratch: slots whose values are replaced
	// sums are by slot: its records' contributions to a window that
	// contains them whole.
	sums  []slotSums
	radix []elem // scratch: the other half of a radix sort
	dirty []int  // scratch: the last capture's dirty slots
	// derived marks, by metric, the statuses (bit st) whose values of the
	// metric the index leaves out: those of the second metric of an alias
	// while no record held of that status differs in it, which are the
	// first metric's (see aliases), so that a streamed request held costs
	// 16 bytes less per such metric.
	derived [numMetrics]uint8
	// subs are the sub-indexes of the windows much shorter than the
	// longest (see subIndex).
	subs []*subIndex
}

// ordered holds, for each metric and status, elements in ascending order
// of their values.
type ordered [numMetrics][numStatuses][]elem

// entryValues are one record's values, as values returns them.
type entryValues struct {
	vs [numMetrics]value
	ok [numMetrics]bool
}

// slotSums are what a slot's kept records contribute to a window's
// request-level figures when the window contains them whole: their counts
// by status, known tokens and seconds in flight, and the span of instants
// over which their tokens and time in flight lie.
type slotSums struct {
	kept           [numStatuses]int64
	output, prompt [numStatuses]int64
	busy           twoSum
	from, to       int64
}

// newSlotSums sums the records of entries.
func newSlotSums(entries []entry) slotSums {
	s := slotSums{from: math.MaxInt64, to: math.MinInt64}
	for i := range entries {
		e := &entries[i]
		s.kept[e.status]++
		output, prompt := e.tokens()
		s.output[e.status] += output
		s.prompt[e.status] += prompt
		tf, tt := e.tokenSpan()
		bf, bt := e.busySpan()
		s.busy.add(seconds(bt) - seconds(bf))
		s.from, s.to = min(s.from, tf, bf), max(s.to, tt, bt)
	}
	return s
}

// update replaces the values of the slots listed in dirty by those of
// their records in views; width is the ring's bucket width, differ the
// bits of the aliases in which a record held differs (capture.differ).
func (ix *valueIndex) update(views []view, dirty []int, width int64, differ uint8) {
	rebuild, some := ix.derive(differ)
	if len(dirty) == 0 && !some {
		return
	}
	ix.stale = slices.Grow(ix.stale[:0], len(views))[:len(views)]
	clear(ix.stale)
	ix.sums = slices.Grow(ix.sums[:0], len(views))[:len(views)]
	for m := range ix.batch {
		for st := range ix.batch[m] {
			ix.batch[m][st] = ix.batch[m][st][:0]
		}
	}
	var keep statusMask
	for m, d := range ix.derived {
		keep[m] = allStatuses &^ d
	}
	for _, sl := range dirty {
		ix.stale[sl] = true
		ix.sums[sl] = newSlotSums(views[sl].entries)
		ix.addSlot(views[sl].entries, sl, width, &keep)
	}
	for sl := range views {
		if some && !ix.stale[sl] { // the rebuilt metrics' values of every other slot
			ix.addSlot(views[sl].entries, sl, width, &rebuild)
		}
	}
	for _, sub := range ix.subs {
		sub.begin(views, ix.stale)
	}
	for m := range ix.sorted {
		for st := range ix.sorted[m] {
			batch := ix.batch[m][st]
			ix.radix = grow(ix.radix, len(batch))
			in := sortByValue(batch, ix.radix)
			ix.sorted[m][st] = mergeSorted(ix.sorted[m][st], ix.stale, in)
			for _, sub := range ix.subs {
				sub.merge(m, st, views, in)
			}
			if cap(batch) > maxBatch {
				ix.batch[m][st] = nil // a first index, or one after a pause
			}
		}
	}
	if cap(ix.radix) > maxBatch {
		ix.radix = nil
	}
}

// statusMask has, by metric, a bit per status.
type statusMask [numMetrics]uint8

// derive sets which statuses of the metrics of aliases the index leaves
// out, from differ (see update): one in which no record held differs is
// dropped; one dropped in which a record now differs is to be rebuilt from
// every slot, and derive returns those, and whether there are some.
func (ix *valueIndex) derive(differ uint8) (rebuild statusMask, some bool) {
	for i, a := range aliases {
		for st := range uint8(numStatuses) {
			bit := uint8(1) << st
			d := differ&aliasBit(i, st) == 0
			if d == (ix.derived[a.m]&bit != 0) {
				continue
			}
			ix.derived[a.m] ^= bit
			ix.sorted[a.m][st] = nil
			for _, sub := range ix.subs {
				sub.sorted[a.m][st] = nil
			}
			if !d {
				rebuild[a.m] |= bit
				some = true
			}
		}
	}
	return rebuild, some
}

// addSlot adds the defined values of the records kept in slot sl to the
// batch, of the metrics and statuses in mask.
func (ix *valueIndex) addSlot(entries []entry, sl int, width int64, mask *statusMask) {
	for pos := range entries {
		var r entryValues
		r.vs, r.ok = entries[pos].values()
		ix.addEntry(&entries[pos], &r, sl, pos, width, mask)
	}
}

// addEntry adds the values r of the record kept at position pos of slot sl
// to the batch, of the metrics whose mask has its status, leaving out
// those no window can include (an absent deciding event).
func (ix *valueIndex) addEntry(e *entry, r *entryValues, sl, pos int, width int64, mask *statusMask) {
	ref := uint32(sl)<<refSlotShift | uint32(pos)
	for m := range numMetrics {
		if !r.ok[m] || mask[m]&(1<<e.status) == 0 {
			continue
		}
		x := elem{v: r.vs[m].v, ref: ref}
		switch {
		case Metric(m).Weighted():
			x.aux = uint32(min(r.vs[m].w, math.MaxUint32))
		case !timedByEnd(Metric(m)):
			ev := e.eventTime(Metric(m))
			if ev == absent {
				continue
			}
			x.aux = lag(ev, e.end, width)
		}
		ix.batch[m][e.status] = append(ix.batch[m][e.status], x)
	}
}

// lag returns the number of buckets of the given width from event ev to
// end, saturated below lagUnknown, or lagUnknown when ev follows end.
func lag(ev, end, width int64) uint32 {
	if ev > end {
		return lagUnknown
	}
	d := bucketOf(end, width) - bucketOf(ev, width)
	return uint32(min(d, lagUnknown-1))
}

// bucketOf returns the bucket of instant t for buckets of the given width
// (rounding down; negative before the origin), as ring.bucket.
func bucketOf(t, width int64) int64 {
	if t >= 0 {
		return t / width
	}
	return -((-t + width - 1) / width)
}

// sortByValue returns xs sorted by value (ascending; the values are never
// NaN), in xs or in buf, whose length is xs's: a least-significant-digit
// radix sort on the order-preserving bits of the values, a byte at a time,
// skipping the bytes every value shares (the high bytes of values of one
// magnitude). Short inputs are sorted by comparison.
func sortByValue(xs, buf []elem) []elem {
	if len(xs) < 256 {
		slices.SortFunc(xs, func(a, b elem) int { return cmp.Compare(a.v, b.v) })
		return xs
	}
	var counts [8][256]int
	for _, x := range xs {
		k := orderKey(x.v)
		for d := range counts {
			counts[d][byte(k>>(8*d))]++
		}
	}
	src, dst := xs, buf
	for d := range counts {
		c := &counts[d]
		if c[byte(orderKey(src[0].v)>>(8*d))] == len(src) {
			continue
		}
		sum := 0
		for i, n := range c {
			c[i], sum = sum, sum+n
		}
		for _, x := range src {
			b := byte(orderKey(x.v) >> (8 * d))
			dst[c[b]] = x
			c[b]++
		}
		src, dst = dst, src
	}
	return src
}

// orderKey maps a float64 to a uint64 in the same order (−0 before +0).
func orderKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// mergeSorted returns sorted without the elements of stale slots, merged
// with batch (sorted too), reusing sorted's memory when it can: the
// survivors are compacted forward, then batch is merged in from the back.
func mergeSorted(sorted []elem, stale []bool, batch []elem) []elem {
	n := 0
	for _, x := range sorted {
		if !stale[x.slot()] {
			sorted[n] = x
			n++
		}
	}
	need := n + len(batch)
	if cap(sorted) < need || cap(sorted) > 2*need+1024 {
		grown := make([]elem, n, need+need/16)
		copy(grown, sorted[:n])
		sorted = grown
	}
	sorted = sorted[:need]
	i, j := n-1, len(batch)-1
	for k := need - 1; j >= 0; k-- {
		if i >= 0 && sorted[i].v > batch[j].v {
			sorted[k] = sorted[i]
			i--
		} else {
			sorted[k] = batch[j]
			j--
		}
	}
	return sorted
}
