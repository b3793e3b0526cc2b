package stats

import "math"

// Ranks are the 1-based ranks of the order statistics that bound a
// percentile's distribution-free confidence interval [x₍Lower₎, x₍Upper₎].
// A bound the sample cannot supply is absent: HasLower or HasUpper is false
// and the rank is 0.
type Ranks struct {
	Lower, Upper       int64
	HasLower, HasUpper bool
}

// Complete reports whether both bounds exist.
func (r Ranks) Complete() bool { return r.HasLower && r.HasUpper }

// PercentileRanks returns the ranks bounding level l's confidence interval in
// a sample of n values at the given confidence c in (0, 1). With
// B ~ Binomial(n, q) and α = 1 − c:
//
//   - Lower is the largest l ≥ 1 with P(B ≤ l − 1) ≤ α/2, absent when even
//     P(B = 0) = (1 − q)ⁿ exceeds α/2;
//   - Upper is the smallest u ≤ n with P(B ≥ u) ≤ α/2, absent when even
//     P(B = n) = qⁿ exceeds α/2.
//
// The interval covers the true quantile of a continuous distribution with
// probability P(l ≤ B ≤ u − 1) ≥ c. At c = 0.95 the upper bound needs
// n ≥ 72 for p95, 368 for p99 and 3688 for p99.9; the lower bound needs the
// same counts for p5, p1 and p0.1, and 6 for p50. Both bounds are absent when
// n < 1, l is invalid or c is outside (0, 1).
func PercentileRanks(n int64, l Level, c float64) Ranks {
	var r Ranks
	if n < 1 || !l.Valid() || !validConfidence(c) {
		return r
	}
	b := newBinomial(n, l)
	tail := (1 - c) / 2
	// Starting guesses from the normal approximation with continuity
	// correction; the walks then settle the exact ranks.
	mu := float64(n) * b.q
	dev := -NormalQuantile(tail) * math.Sqrt(mu*b.p)
	if k, ok := b.lastCDFAtMost(tail, int64(math.Floor(mu-dev-0.5))); ok {
		r.Lower, r.HasLower = k+1, true
	}
	if u, ok := b.firstSFAtMost(tail, int64(math.Ceil(mu+dev+0.5))); ok {
		r.Upper, r.HasUpper = u, true
	}
	return r
}

// validConfidence reports whether c is a usable confidence level, in (0, 1).
func validConfidence(c float64) bool {
	return c > 0 && c < 1 && !math.IsNaN(c)
}
