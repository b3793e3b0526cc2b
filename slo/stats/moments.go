package stats

import "math"

// compensated is a Neumaier (improved Kahan) running sum: c accumulates
// the exact rounding error of every addition. The error is computed by
// Knuth's branch-free TwoSum, which gives the same exact error as
// Neumaier's comparison of magnitudes without a branch that a sum hovering
// around zero (the deviations from a mean) would mispredict.
type compensated struct {
	sum, c float64
}

func (k *compensated) add(x float64) {
	t := k.sum + x
	bx := t - k.sum
	k.c += (k.sum - (t - bx)) + (x - bx)
	k.sum = t
}

func (k compensated) value() float64 { return k.sum + k.c }

// scaleExp returns e such that every |x|·2⁻ᵉ ≤ 2 for the finite values of
// xs, so that sums of n scaled values stay below 2n and cannot overflow. It
// is clamped to [−1000, 1023] so that both 2ᵉ and 2⁻ᵉ are normal float64
// values and scaling is an exact multiplication. It returns 0 when every
// value is zero or one is infinite (then the moments are infinite or NaN
// anyway).
func scaleExp(xs []float64) int {
	m := 0.0
	for _, x := range xs {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) {
		return 0
	}
	_, e := math.Frexp(m)
	return min(max(e, -1000), 1023)
}

// moments are the first two moments of a sample, kept in the scaled units
// x·2⁻ᵉ so that huge values (1e300) neither overflow nor lose precision.
type moments struct {
	n    int
	up   float64 // 2ᵉ, the scale factor
	sum  float64 // Σ x·2⁻ᵉ
	mean float64 // sum / n
	ss   float64 // Σ (x·2⁻ᵉ − mean)², by the corrected two-pass method
}

// newMoments computes the moments of xs (sorted finite values, len ≥ 1)
// with two compensated passes; the scale comes from the extremes, the
// first and last values.
func newMoments(xs []float64) moments {
	e := scaleExp([]float64{xs[0], xs[len(xs)-1]})
	down := math.Ldexp(1, -e)
	m := moments{n: len(xs), up: math.Ldexp(1, e)}
	var s compensated
	for _, x := range xs {
		s.add(x * down)
	}
	m.sum = s.value()
	m.mean = m.sum / float64(m.n)
	var dev, sq compensated
	for _, x := range xs {
		d := x*down - m.mean
		dev.add(d)
		sq.add(d * d)
	}
	// Subtracting (Σd)²/n removes the error left by rounding the mean.
	m.ss = max(sq.value()-dev.value()*dev.value()/float64(m.n), 0)
	return m
}

// scale converts a quantity in the sample's units to scaled units.
func (m moments) scale(v float64) float64 { return v / m.up }

// unscale converts a scaled first-order quantity back to the sample's units.
func (m moments) unscale(v float64) float64 { return v * m.up }

// Sum returns Σx.
func (m moments) Sum() float64 { return m.unscale(m.sum) }

// Mean returns Σx/n.
func (m moments) Mean() float64 { return m.unscale(m.mean) }

// Variance returns the population variance Σ(x − mean)²/n. Multiplying by
// 2ᵉ twice overflows only when the variance itself does.
func (m moments) Variance() float64 {
	return m.ss / float64(m.n) * m.up * m.up
}

// StdDev returns the population standard deviation.
func (m moments) StdDev() float64 {
	return m.unscale(math.Sqrt(m.ss / float64(m.n)))
}

// sampleStdDevScaled returns the sample standard deviation (÷(n − 1)) in
// scaled units; it needs n ≥ 2.
func (m moments) sampleStdDevScaled() float64 {
	return math.Sqrt(m.ss / float64(m.n-1))
}
