package window

import "sync"

// scratch holds the buffers of one snapshot computation: the columns of
// one metric at a time and the selection's per-slot tables. They are
// reused, so a snapshot allocates little beyond its figures; the pool
// shares them between stores.
type scratch struct {
	cols [numStatuses + 1]column
	tmp  column
	sel  selection
	// elems holds an alias's values merged with its metric's.
	elems []elem
	// bigBlocks and smallCum are the running sums of a mixed estimate.
	bigBlocks, smallCum []float64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// putScratch returns sc to the pool without the references it holds to a
// store's records.
func putScratch(sc *scratch) {
	sc.sel.views = nil
	scratchPool.Put(sc)
}
