package window

import (
	"math"
	"slices"
	"sort"
)

// Classes of a slot for a window.
const (
	slotOut    uint8 = iota // holds no bucket of the window
	slotInside              // holds a bucket strictly inside it: its ends lie in the window
	slotEdge                // holds the first or last bucket: its records are checked one by one
)

// selection picks a window's values out of the index: by the bucket of
// each value's record and of its deciding event, checking against the
// record only the values whose buckets the window's bounds cut.
type selection struct {
	acc   accumulator // the bounds, for contains
	views []view
	// slots are by slot: its class and its bucket's distance from the
	// window's first bucket, with the weights of the status being
	// collected.
	slots []slotSel
	// weight is by slot and status: the records one kept record stands
	// for (approximate windows only; nil otherwise).
	weight [][numStatuses]float64
}

// slotSel is what collecting one status reads of a slot, in 16 bytes so
// that the table of every slot stays in the first-level cache.
type slotSel struct {
	weight float64
	dist   uint32
	class  uint8
}

// newSelection returns the selection of g's window over c's views, with
// the buffers of sc.
func newSelection(c *capture, g *gathered, sc *scratch) *selection {
	sel := &sc.sel
	*sel = selection{acc: accumulator{start: g.start, now: g.now, horizon: g.horizon}, views: c.views, slots: grow(sc.sel.slots, len(c.views))}
	for i, v := range c.views {
		s := slotSel{class: slotOut, dist: uint32(min(max(v.n-g.first, 0), math.MaxUint32))}
		switch {
		case v.n < g.first || v.n > g.final:
		case v.n == g.first || v.n >= g.last:
			s.class = slotEdge
		default:
			s.class = slotInside
		}
		sel.slots[i] = s
	}
	if g.approximate {
		sel.weight = grow(sc.sel.weight, len(c.views))
		clear(sel.weight)
		for _, p := range g.parts {
			sel.weight[p.slot] = p.weight
		}
	}
	sc.sel.slots, sc.sel.weight = sel.slots, sel.weight
	return sel
}

// grow returns s resized to n elements, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// edgeIncludes reports whether value x of metric m, whose buckets the
// window's bounds cut, counts in it (accumulator.includes): its record
// ended in the window and, for metrics decided by another event, that event
// lies in it too; or it ended after the window (by the horizon) and the
// interval deciding m overlaps it.
func (sel *selection) edgeIncludes(m Metric, x elem) bool {
	e := &sel.views[x.slot()].entries[x.pos()]
	return sel.acc.includes(m, e)
}

// column is a metric's included values of one status (or of all) in a
// window, ascending, with their token weights (weighted metrics) and, in
// approximate windows, their sampling weights: token weight × the records
// their record stands for.
type column struct {
	v        []float64
	tok      []int64
	sw       []float64
	weighted bool // tok is kept
	sampled  bool // sw is kept
	// blocks are the sums of sw over consecutive blockSize values, set by
	// tally.
	blocks []float64
}

// reset empties c, keeping its memory.
func (c *column) reset(weighted, sampled bool) {
	*c = column{v: c.v[:0], tok: c.tok[:0], sw: c.sw[:0], blocks: c.blocks[:0], weighted: weighted, sampled: sampled}
}

// collect fills col with metric m's values of status st in the window, in
// the index's ascending order. A value counts when its record ended in the
// window and, for metrics decided by another event (aux holds the buckets
// between them), that event lies in it too; only the values whose buckets
// the window's bounds cut are checked against their records. The values
// fall in and out of a window in no order, so the loop stores each and
// keeps it by advancing its length or not, without a branch to mispredict.
func (sel *selection) collect(m Metric, st uint8, sorted []elem, col *column) {
	byEnd, weighted, sampled := timedByEnd(m), m.Weighted(), sel.weight != nil
	vs, toks, sws := col.buffers(len(sorted), weighted, sampled)
	if sampled {
		for i := range sel.slots {
			sel.slots[i].weight = sel.weight[i][st]
		}
	}
	n := 0
	for _, x := range sorted {
		sl := &sel.slots[x.slot()]
		class := sl.classOf(x, byEnd)
		keep := class == slotInside || class == slotEdge && sel.edgeIncludes(m, x)
		tok := int64(1)
		if weighted {
			tok = int64(x.aux)
			toks[n] = tok
		}
		if sampled {
			sws[n] = float64(tok) * sl.weight
		}
		vs[n] = x.v
		n += b2i(keep)
	}
	col.v = vs[:n]
	if weighted {
		col.tok = toks[:n]
	}
	if sampled {
		col.sw = sws[:n]
	}
}

// classOf returns the class of value x in its slot s: the slot's own but
// for a metric decided by another event than the end (byEnd false), whose
// lag x.aux may put that event before the window's first bucket (out) or
// in it (checked as at an edge).
func (s *slotSel) classOf(x elem, byEnd bool) uint8 {
	if byEnd || s.class != slotInside {
		return s.class
	}
	switch {
	case x.aux == lagUnknown || x.aux == s.dist:
		return slotEdge // the event may fall in the first bucket
	case x.aux > s.dist:
		return slotOut // the event came before the first bucket
	}
	return slotInside
}

// buffers empties c for n values of the given kinds and returns its
// buffers of values, token weights and sampling weights, n long (the
// weights' only when kept).
func (c *column) buffers(n int, weighted, sampled bool) (vs []float64, toks []int64, sws []float64) {
	c.reset(weighted, sampled)
	vs, toks, sws = grow(c.v, n), c.tok, c.sw
	if weighted {
		toks = grow(toks, n)
	}
	if sampled {
		sws = grow(sws, n)
	}
	return vs, toks, sws
}

// b2i returns 1 for true and 0 for false (compiled without a branch).
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// merge fills c with the values of cols (each ascending) in ascending
// order, with their weights; tmp is scratch.
func (c *column) merge(cols []column, tmp *column) {
	var nonEmpty []*column
	for i := range cols {
		if len(cols[i].v) > 0 {
			nonEmpty = append(nonEmpty, &cols[i])
		}
	}
	switch len(nonEmpty) {
	case 0:
		c.reset(cols[0].weighted, cols[0].sampled)
	case 1:
		c.mergeTwo(nonEmpty[0], &column{})
	case 2:
		c.mergeTwo(nonEmpty[0], nonEmpty[1])
	default:
		tmp.mergeTwo(nonEmpty[0], nonEmpty[1])
		c.mergeTwo(tmp, nonEmpty[2])
	}
}

// mergeTwo fills c with the values of a and b (each ascending) in
// ascending order, with a's kinds of weights: b's values are placed by
// binary search and a's between them copied in bulk, as one of a window's
// statuses usually holds most of its values.
func (c *column) mergeTwo(a, b *column) {
	if len(b.v) > len(a.v) {
		a, b = b, a
	}
	c.reset(a.weighted, a.sampled)
	n := len(a.v) + len(b.v)
	c.v = slices.Grow(c.v, n)
	if c.weighted {
		c.tok = slices.Grow(c.tok, n)
	}
	if c.sampled {
		c.sw = slices.Grow(c.sw, n)
	}
	i := 0
	for j := range b.v {
		k := i + sort.Search(len(a.v)-i, func(k int) bool { return a.v[i+k] > b.v[j] })
		c.appendRange(a, i, k)
		c.appendRange(b, j, j+1)
		i = k
	}
	c.appendRange(a, i, len(a.v))
}

// appendRange appends src's values [from, to) with their weights.
func (c *column) appendRange(src *column, from, to int) {
	c.v = append(c.v, src.v[from:to]...)
	if c.weighted {
		c.tok = append(c.tok, src.tok[from:to]...)
	}
	if c.sampled {
		c.sw = append(c.sw, src.sw[from:to]...)
	}
}
