package window

import (
	"sort"

	"github.com/llmprober/llmprober/slo/stats"
)

// mixed estimates the order statistics of all statuses taken together
// when one status, big, holds most of the sampled values and the others
// few, merged in small: instead of merging the two and reading the merge,
// it searches big through the block sums of its tally and small through
// its running sums. W(v), the sampling weight of the values at most v, is
// big's through v plus small's through v.
type mixed struct {
	big, small *column
	// bigBlocks[b] is big's weight before block b; smallCum[j] small's
	// through value j.
	bigBlocks, smallCum []float64
}

// newMixed prepares the searches over tallied big and small columns, in
// the buffers of sc.
func newMixed(big, small *column, sc *scratch) *mixed {
	mx := &mixed{big: big, small: small, bigBlocks: sc.bigBlocks[:0], smallCum: sc.smallCum[:0]}
	defer func() { sc.bigBlocks, sc.smallCum = mx.bigBlocks, mx.smallCum }()
	cum := 0.0
	for _, b := range big.blocks {
		mx.bigBlocks = append(mx.bigBlocks, cum)
		cum += b
	}
	cum = 0
	for _, w := range small.sw {
		cum += w
		mx.smallCum = append(mx.smallCum, cum)
	}
	return mx
}

// bigThrough returns big's weight of its values [0, i].
func (mx *mixed) bigThrough(i int) float64 {
	if i < 0 {
		return 0
	}
	b := i / blockSize
	w := mx.bigBlocks[b]
	for _, x := range mx.big.sw[b*blockSize : i+1] {
		w += x
	}
	return w
}

// weightAtMost returns W(v) and the values of big and small at most v.
func (mx *mixed) weightAtMost(v float64) (w float64, nb, ns int) {
	nb = sort.Search(len(mx.big.v), func(i int) bool { return mx.big.v[i] > v })
	ns = sort.Search(len(mx.small.v), func(i int) bool { return mx.small.v[i] > v })
	w = mx.bigThrough(nb - 1)
	if ns > 0 {
		w += mx.smallCum[ns-1]
	}
	return w, nb, ns
}

// first returns the smallest value of vs whose W, compared as W·den ≥ rhs,
// is reached; ok is false when none is.
func (mx *mixed) first(vs []float64, den, rhs float64) (v float64, ok bool) {
	i := sort.Search(len(vs), func(i int) bool {
		w, _, _ := mx.weightAtMost(vs[i])
		return w*den >= rhs
	})
	if i == len(vs) {
		return 0, false
	}
	return vs[i], true
}

// estimate sets out's percentiles (the smallest value whose W reaches
// q·total), its median and, unless weighted, its mode (the value of
// greatest weight, ties to the smallest: big's mode, of weight bigModeW,
// or a value of small); hi is the largest value.
func (mx *mixed) estimate(out *Summary, total, bigMode, bigModeW, hi float64) {
	for k := range out.Percentiles {
		l := out.Percentiles[k].Level
		den, rhs := float64(l.Den), float64(l.Num)*total
		v, ok := mx.first(mx.big.v, den, rhs)
		if s, sok := mx.first(mx.small.v, den, rhs); sok && (!ok || s < v) {
			v, ok = s, true
		}
		if !ok { // the rounded sums never reach the level
			v = hi
		}
		out.Percentiles[k].Value = ptr(v)
	}
	if v, ok := out.Percentile(stats.P50); ok {
		out.Median = &v
	}
	if out.Weighted {
		return
	}
	mode, modeW := bigMode, bigModeW+mx.weightOf(mx.small, mx.smallCum, bigMode)
	for j := 0; j < len(mx.small.v); {
		v := mx.small.v[j]
		end := j + sort.Search(len(mx.small.v)-j, func(i int) bool { return mx.small.v[j+i] > v })
		w := mx.smallCum[end-1] - mx.smallBefore(j) + mx.bigWeightOf(v)
		if w > modeW || w == modeW && v < mode {
			mode, modeW = v, w
		}
		j = end
	}
	out.Mode = ptr(mode)
}

// smallBefore returns small's weight of its values before j.
func (mx *mixed) smallBefore(j int) float64 {
	if j == 0 {
		return 0
	}
	return mx.smallCum[j-1]
}

// weightOf returns the weight of c's values equal to v, cum being c's
// running sums.
func (mx *mixed) weightOf(c *column, cum []float64, v float64) float64 {
	lo := sort.SearchFloat64s(c.v, v)
	hi := lo + sort.Search(len(c.v)-lo, func(i int) bool { return c.v[lo+i] > v })
	if hi == lo {
		return 0
	}
	if lo == 0 {
		return cum[hi-1]
	}
	return cum[hi-1] - cum[lo-1]
}

// bigWeightOf returns the weight of big's values equal to v.
func (mx *mixed) bigWeightOf(v float64) float64 {
	lo := sort.SearchFloat64s(mx.big.v, v)
	hi := lo + sort.Search(len(mx.big.v)-lo, func(i int) bool { return mx.big.v[lo+i] > v })
	if hi == lo {
		return 0
	}
	return mx.bigThrough(hi-1) - mx.bigThrough(lo-1)
}
