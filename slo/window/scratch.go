package window

import "sync"

// scratch holds the buffers of one snapshot computation: the columns of
// one metric at a time and the selection's per-slot tables. They are
// reused, so a snapshot allocates little beyond its figures; the pool
// shares them between stores.
type scratch struct {
	cols [numStatuses + 1]column
	// tallies are those of cols, by status (see summarizeByStatus).
	tallies [numStatuses]tally
	tmp     column
	sel     selection
	// bigBlocks and smallCum are the running sums of a mixed estimate.
	bigBlocks, smallCum []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// pooledValues bounds the buffers a pooled scratch keeps, in values: the
// larger ones, of windows holding many records, go back to the garbage
// collector at once, so that the collections right after a snapshot do not
// count them as live and raise the heap's goal by twice their size.
const pooledValues = 8192

// putScratch returns sc to the pool without the references it holds to a
// store's records, nor its large buffers.
func putScratch(sc *scratch) {
	sc.sel.views = nil
	for i := range sc.cols {
		sc.cols[i].release()
	}
	sc.tmp.release()
	if cap(sc.bigBlocks) > pooledValues {
		sc.bigBlocks = nil
	}
	if cap(sc.smallCum) > pooledValues {
		sc.smallCum = nil
	}
	scratchPool.Put(sc)
}

// release drops the column's buffers if they are large.
func (c *column) release() {
	if cap(c.v) > pooledValues || cap(c.sw) > pooledValues || cap(c.tok) > pooledValues {
		*c = column{}
	}
}
