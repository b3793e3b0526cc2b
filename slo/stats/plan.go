package stats

import (
	"math"
	"sync/atomic"
)

// plan holds what the intervals of a sample depend on besides its values:
// the order-statistic ranks of every level and the t quantile, all functions
// of n and the confidence alone.
type plan struct {
	n     int64
	c     float64
	ranks []Ranks // one per level of Levels
	t     float64 // t_{(1+c)/2, n−1}; NaN for n < 2
}

// planCache remembers recent plans: the summaries of one collection mostly
// share a few sample sizes (every once-per-request metric of a window and
// status has the same n), and a plan costs some 30 incomplete-beta
// evaluations. It is a fixed array of slots indexed by a hash of (n, c), so
// its memory is bounded; a collision simply recomputes.
var planCache [64]atomic.Pointer[plan]

// planFor returns the plan for n values at confidence c, from the cache when
// it holds it.
func planFor(n int64, c float64) *plan {
	h := uint64(n)*0x9e3779b97f4a7c15 ^ math.Float64bits(c)
	slot := &planCache[(h^h>>29)%uint64(len(planCache))]
	if p := slot.Load(); p != nil && p.n == n && p.c == c {
		return p
	}
	p := &plan{n: n, c: c, t: math.NaN()}
	for _, l := range Levels() {
		p.ranks = append(p.ranks, PercentileRanks(n, l, c))
	}
	if n >= 2 {
		p.t = StudentT((1+c)/2, float64(n-1))
	}
	slot.Store(p)
	return p
}
