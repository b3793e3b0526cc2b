package stats

import "math"

// Wilson returns the Wilson score interval [lo, hi] for a proportion of
// successes out of n trials at the given confidence in (0, 1); for example
// 8 of 10 at 0.95 gives [0.4902, 0.9433]. With p̂ = successes/n and z the
// normal quantile of (1 + c)/2:
//
//	centre = (p̂ + z²/2n) / (1 + z²/n)
//	half   = z/(1 + z²/n) · √(p̂(1 − p̂)/n + z²/4n²)
//
// ok is false (and lo, hi are 0) when n ≤ 0, successes is outside [0, n] or
// the confidence is outside (0, 1).
func Wilson(successes, n int64, confidence float64) (lo, hi float64, ok bool) {
	if n <= 0 || successes < 0 || successes > n || !validConfidence(confidence) {
		return 0, 0, false
	}
	z := NormalQuantile((1 + confidence) / 2)
	nf := float64(n)
	p := float64(successes) / nf
	z2n := z * z / nf
	centre := (p + z2n/2) / (1 + z2n)
	half := z / (1 + z2n) * math.Sqrt(p*(1-p)/nf+z2n/(4*nf))
	lo, hi = max(centre-half, 0), min(centre+half, 1)
	// The bounds are exact at the extremes: 0 successes cannot exclude 0, and
	// n successes cannot exclude 1.
	if successes == 0 {
		lo = 0
	}
	if successes == n {
		hi = 1
	}
	return lo, hi, true
}
