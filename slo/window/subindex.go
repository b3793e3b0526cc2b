package window

import (
	"math"
	"slices"
	"time"
)

// subShare is the largest share of the longest window that a window may
// span and still keep a sub-index: collecting it from the index would
// read at least subShare values for each one it keeps. (At a fifth, 1m
// of 5m, keeping the sub-index up to date took most of what it saved:
// 6 to 12 % of a snapshot, for an eighth more memory a record.)
const subShare = 8

// subIndex is the index restricted to the slots that hold a bucket from
// lowest on: for each metric and status, the index's elements of those
// slots, in the index's order. A window much shorter than the longest
// collects its values from it instead of scanning every value the index
// holds, and collects the same values in the same order, so its figures
// are the same to the bit.
//
// The order is the index's because both take the same changes: each
// update removes the elements of the changed slots (and, from the
// sub-index, of the slots before lowest), then merges in the changed
// slots' elements sorted once, the sub-index those of its slots in that
// order, and a merge places an element by its value alone, ahead of the
// new elements of equal value. Restricting a merge to some elements is
// then the merge of the restricted inputs.
type subIndex struct {
	w time.Duration
	// lowest is the oldest bucket whose slots' elements it holds;
	// math.MinInt64 while it holds every slot's (as before any update).
	lowest int64
	sorted ordered
	// next is the lowest to take at the next update (see raise).
	next  int64
	stale []bool // scratch: slots whose elements are removed
	batch []elem // scratch: the new elements of its slots
}

// newSubIndexes returns the sub-indexes of the windows ws that span at
// most a subShare-th of the longest.
func newSubIndexes(ws []time.Duration) []*subIndex {
	longest := slices.Max(ws)
	var subs []*subIndex
	for _, w := range ws {
		if w*subShare <= longest {
			subs = append(subs, &subIndex{w: w, lowest: math.MinInt64, next: math.MinInt64})
		}
	}
	return subs
}

// raise sets, for each sub-index whose window is among ws and is being
// measured (gs[i].ok), the lowest bucket to keep from the next update on:
// the window's first bucket, unless an earlier snapshot already went past
// it (a later snapshot of an earlier instant then reads the index).
func (ix *valueIndex) raise(ws []time.Duration, gs []gathered) {
	for _, sub := range ix.subs {
		for i, w := range ws {
			if w == sub.w && gs[i].ok {
				sub.next = max(sub.next, gs[i].first)
			}
		}
	}
}

// sortedFor returns the elements a window of length w whose first bucket
// is first collects from: its sub-index when it holds that bucket, the
// index otherwise.
func (ix *valueIndex) sortedFor(w time.Duration, first int64) *ordered {
	for _, sub := range ix.subs {
		if sub.w == w && first >= sub.lowest {
			return &sub.sorted
		}
	}
	return &ix.sorted
}

// begin starts an update of the sub-index: the slots whose elements are
// removed are the changed ones (stale) and those holding a bucket before
// the new lowest.
func (sub *subIndex) begin(views []view, stale []bool) {
	sub.lowest = sub.next
	sub.stale = grow(sub.stale, len(views))
	for sl := range views {
		sub.stale[sl] = stale[sl] || views[sl].n < sub.lowest
	}
}

// merge brings metric m's elements of status st up to date, with batch,
// the index's new elements of that metric and status in the index's
// order: usually all of its slots (they hold the newest buckets), else
// (the index taking every slot's elements of a metric again, see aliases)
// those of its slots, copied apart.
func (sub *subIndex) merge(m, st int, views []view, batch []elem) {
	in := batch
	if !sub.holdsAll(views, batch) {
		sub.batch = sub.batch[:0]
		for _, x := range batch {
			if views[x.slot()].n >= sub.lowest {
				sub.batch = append(sub.batch, x)
			}
		}
		in = sub.batch
	}
	sub.sorted[m][st] = mergeSorted(sub.sorted[m][st], sub.stale, in)
	if cap(sub.batch) > maxBatch {
		sub.batch = nil
	}
}

// holdsAll reports whether the slots of every element of batch hold a
// bucket from lowest on.
func (sub *subIndex) holdsAll(views []view, batch []elem) bool {
	for _, x := range batch {
		if views[x.slot()].n < sub.lowest {
			return false
		}
	}
	return true
}
