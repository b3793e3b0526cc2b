package stats

import "math"

// binomial is B ~ Binomial(n, q) with q held as both q and p = 1 − q, each
// converted to float64 from the exact level fraction.
type binomial struct {
	n    int64
	q, p float64
}

func newBinomial(n int64, l Level) binomial {
	return binomial{n: n, q: l.Float(), p: l.Complement()}
}

// cdf returns P(B ≤ k) = I_p(n − k, k + 1).
func (b binomial) cdf(k int64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= b.n:
		return 1
	}
	return regIncBeta(float64(b.n-k), float64(k+1), b.p, b.q)
}

// sf returns P(B ≥ k) = I_q(k, n − k + 1), computed directly so that a tiny
// upper tail keeps its relative precision.
func (b binomial) sf(k int64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > b.n:
		return 0
	}
	return regIncBeta(float64(k), float64(b.n-k+1), b.q, b.p)
}

// pmf returns P(B = k) = C(n, k)·qᵏ·pⁿ⁻ᵏ. For 0 ≤ k < n this is the
// incomplete-beta prefactor of I_p(n − k, k + 1), which is P(B = k)·q.
func (b binomial) pmf(k int64) float64 {
	switch {
	case k < 0 || k > b.n:
		return 0
	case k == b.n:
		return math.Pow(b.q, float64(b.n))
	}
	return betaPrefactor(float64(b.n-k), float64(k+1), b.p, b.q) / b.q
}

// next returns P(B = k + 1) from pm = P(B = k).
func (b binomial) next(k int64, pm float64) float64 {
	return pm * float64(b.n-k) / float64(k+1) * b.q / b.p
}

// prev returns P(B = k − 1) from pm = P(B = k).
func (b binomial) prev(k int64, pm float64) float64 {
	return pm * float64(k) / float64(b.n-k+1) * b.p / b.q
}

// lastCDFAtMost returns the largest k in [0, n − 1] with P(B ≤ k) ≤ tail,
// and false when there is none (P(B = 0) > tail). It evaluates the
// distribution function once, at the guess, and walks from there by adding
// or removing single terms, each obtained from its neighbour by the ratio
// of binomial terms.
func (b binomial) lastCDFAtMost(tail float64, guess int64) (int64, bool) {
	k := min(max(guess, 0), b.n-1)
	f, pm := b.cdf(k), b.pmf(k)
	for f > tail { // step down: P(B ≤ k − 1) = P(B ≤ k) − P(B = k)
		if k == 0 {
			return 0, false
		}
		f -= pm
		pm = b.prev(k, pm)
		k--
	}
	for k < b.n-1 { // step up while P(B ≤ k + 1) stays within the tail
		pn := b.next(k, pm)
		if f+pn > tail {
			break
		}
		f, pm = f+pn, pn
		k++
	}
	return k, true
}

// firstSFAtMost returns the smallest u in [1, n] with P(B ≥ u) ≤ tail, and
// false when there is none (P(B = n) > tail). It walks like lastCDFAtMost.
func (b binomial) firstSFAtMost(tail float64, guess int64) (int64, bool) {
	u := min(max(guess, 1), b.n)
	s, pm := b.sf(u), b.pmf(u)
	for s > tail { // step up: P(B ≥ u + 1) = P(B ≥ u) − P(B = u)
		if u == b.n {
			return 0, false
		}
		s -= pm
		pm = b.next(u, pm)
		u++
	}
	for u > 1 { // step down while P(B ≥ u − 1) stays within the tail
		pp := b.prev(u, pm)
		if s+pp > tail {
			break
		}
		s, pm = s+pp, pp
		u--
	}
	return u, true
}
