package window

import "slices"

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
	// class and dist are by slot: the slot's class, and its bucket's
	// distance from the window's first bucket.
	class []uint8
	dist  []int64
	// weight is by slot and status: the records one kept record stands
	// for (approximate windows only; nil otherwise).
	weight [][numStatuses]float64
}

// newSelection returns the selection of g's window over c's views, with
// the buffers of sc.
func newSelection(c *capture, g *gathered, sc *scratch) *selection {
	sel := &sc.sel
	*sel = selection{acc: accumulator{start: g.start, now: g.now}, views: c.views,
		class: grow(sc.sel.class, len(c.views)), dist: grow(sc.sel.dist, len(c.views))}
	for i, v := range c.views {
		sel.class[i], sel.dist[i] = slotOut, v.n-g.first
		switch {
		case v.n < g.first || v.n > g.last:
		case v.n == g.first || v.n == g.last:
			sel.class[i] = slotEdge
		default:
			sel.class[i] = slotInside
		}
	}
	if g.approximate {
		sel.weight = grow(sc.sel.weight, len(c.views))
		clear(sel.weight)
		for _, p := range g.parts {
			sel.weight[p.slot] = p.weight
		}
	}
	sc.sel.class, sc.sel.dist, sc.sel.weight = sel.class, sel.dist, sel.weight
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
// window's bounds cut, counts in it: its record ended in the window and,
// for metrics decided by another event, that event lies in it too.
func (sel *selection) edgeIncludes(m Metric, x elem) bool {
	e := &sel.views[x.slot()].entries[x.pos()]
	return sel.acc.contains(e.end) && sel.acc.contains(e.eventTime(m))
}

// column is metric's included values of one status (or of all) in a
// window, ascending, with their token weights (weighted metrics) and, in
// approximate windows, their sampling weights (token weight × the records
// their record stands for) and running totals.
type column struct {
	v        []float64
	tok      []int64
	sw       []float64
	weighted bool // tok is kept
	sampled  bool // sw and the totals are kept
	// n is Σ tok, sum Σ tok·v and total Σ sw (sampled columns).
	n     int64
	sum   twoSum
	total float64
}

// reset empties c, keeping its memory.
func (c *column) reset(weighted, sampled bool) {
	*c = column{v: c.v[:0], tok: c.tok[:0], sw: c.sw[:0], weighted: weighted, sampled: sampled}
}

// collect fills col with metric m's values of status st in the window, in
// the index's ascending order. A value counts when its record ended in the
// window and, for metrics decided by another event (aux holds the buckets
// between them), that event lies in it too; only the values whose buckets
// the window's bounds cut are checked against their records.
func (sel *selection) collect(m Metric, st uint8, sorted []elem, col *column) {
	byEnd, weighted, sampled := timedByEnd(m), m.Weighted(), sel.weight != nil
	col.reset(weighted, sampled)
	vs, toks, sws := col.v, col.tok, col.sw
	var n int64
	var sum twoSum
	var total float64
	for _, x := range sorted {
		sl := x.slot()
		class := sel.class[sl]
		if class == slotOut {
			continue
		}
		if !byEnd {
			switch d := uint64(sel.dist[sl]); {
			case x.aux == lagUnknown:
				class = slotEdge
			case uint64(x.aux) > d: // the event came before the first bucket
				continue
			case uint64(x.aux) == d: // in the first bucket
				class = slotEdge
			}
		}
		if class == slotEdge && !sel.edgeIncludes(m, x) {
			continue
		}
		vs = append(vs, x.v)
		tok := int64(1)
		if weighted {
			tok = int64(x.aux)
			toks = append(toks, tok)
		}
		if sampled {
			w := float64(tok) * sel.weight[sl][st]
			sws = append(sws, w)
			total += w
			n += tok
			sum.add(x.v * float64(tok))
		}
	}
	col.v, col.tok, col.sw, col.n, col.sum, col.total = vs, toks, sws, n, sum, total
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
// ascending order, with a's kinds of weights.
func (c *column) mergeTwo(a, b *column) {
	c.reset(a.weighted, a.sampled)
	c.total = a.total + b.total
	n := len(a.v) + len(b.v)
	vs := slices.Grow(c.v, n)[:n]
	var toks []int64
	var sws []float64
	if c.weighted {
		toks = slices.Grow(c.tok, n)[:n]
	}
	if c.sampled {
		sws = slices.Grow(c.sw, n)[:n]
	}
	i, j := 0, 0
	for k := range vs {
		src, at := a, i
		if i == len(a.v) || (j < len(b.v) && b.v[j] < a.v[i]) {
			src, at = b, j
			j++
		} else {
			i++
		}
		vs[k] = src.v[at]
		if toks != nil {
			toks[k] = src.tok[at]
		}
		if sws != nil {
			sws[k] = src.sw[at]
		}
	}
	c.v = vs
	if c.weighted {
		c.tok = toks
	}
	if c.sampled {
		c.sw = sws
	}
}

// twoSum is a compensated running sum whose error term is Knuth's
// branch-free TwoSum: the exact rounding error of each addition.
type twoSum struct {
	sum, c float64
}

func (k *twoSum) add(x float64) {
	t := k.sum + x
	bx := t - k.sum
	k.c += (k.sum - (t - bx)) + (x - bx)
	k.sum = t
}

func (k *twoSum) value() float64 { return k.sum + k.c }
