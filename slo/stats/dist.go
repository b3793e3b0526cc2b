package stats

import "math"

// NormalQuantile returns z with Φ(z) = p for the standard normal
// distribution: −∞ at p = 0, +∞ at p = 1 and NaN outside [0, 1].
func NormalQuantile(p float64) float64 {
	if p < 0 || p > 1 || math.IsNaN(p) {
		return math.NaN()
	}
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// StudentTCDF returns P(T ≤ t) for Student's t distribution with ν > 0
// degrees of freedom (ν = +∞ is the standard normal). It returns NaN when ν
// is not positive or either argument is NaN.
func StudentTCDF(t, nu float64) float64 {
	switch {
	case math.IsNaN(t) || math.IsNaN(nu) || nu <= 0:
		return math.NaN()
	case math.IsInf(nu, 1):
		return 0.5 * math.Erfc(-t/math.Sqrt2)
	case t < 0:
		return studentUpper(-t, nu)
	}
	return 1 - studentUpper(t, nu)
}

// studentUpper returns P(T > t) = ½·I_x(ν/2, ½) = ½·(1 − I_y(½, ν/2)) for
// t ≥ 0, with x = ν/(ν + t²) and y = t²/(ν + t²).
//
// For large ν, x is within t²/ν of 1, and its own rounding (ε·x) moves I_x
// by a relative ε/2y, 10⁻⁹ at ν = 10⁸: there the form in y, which loses only
// ε/tail to the subtraction from 1, is used as long as the tail (estimated
// by the normal one) exceeds y.
func studentUpper(t, nu float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	t2 := t * t
	x, y := nu/(nu+t2), t2/(nu+t2)
	if y < 0.1 && 0.5*math.Erfc(t/math.Sqrt2) > y {
		return 0.5 * (1 - incBetaFraction(0.5, nu/2, y, x))
	}
	return 0.5 * regIncBeta(nu/2, 0.5, x, y)
}

// StudentT returns the quantile t_{p,ν} of Student's t distribution, the t
// with P(T ≤ t) = p, for 0 < p < 1 and ν > 0 degrees of freedom (ν = +∞
// gives NormalQuantile). Examples: t_{0.975,1} = 12.7062,
// t_{0.975,9} = 2.2622, t_{0.995,4} = 4.6041. It returns ±∞ at p = 1 or
// p = 0 and NaN for p outside [0, 1] or ν ≤ 0.
//
// It solves P(T > t) = 1 − p by Newton's method starting from Fisher's
// expansion, safeguarded by doubling and bisection, to about the precision
// of the distribution function (relative 1e-12 or better; the closed forms
// for ν = 1, 2 and 4 and t_{0.975,10⁸} are met to 1e-12 in the tests).
func StudentT(p, nu float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(nu) || p < 0 || p > 1 || nu <= 0:
		return math.NaN()
	case math.IsInf(nu, 1):
		return NormalQuantile(p)
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentT(1-p, nu)
	case p == 1:
		return math.Inf(1)
	}
	tail := 1 - p
	logNorm := studentLogNorm(nu)
	// Newton on P(T > t) − tail, whose derivative is −pdf(t), from Fisher's
	// expansion t ≈ z + z(z² + 1)/4ν; the bracket [lo, hi] shrinks with
	// every evaluation, and a step leaving it doubles t or bisects instead.
	z := NormalQuantile(p)
	t := z + z*(z*z+1)/(4*nu)
	lo, hi := 0.0, math.Inf(1)
	for range 200 {
		g := studentUpper(t, nu) - tail
		if g > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t + g/studentPDF(t, nu, logNorm)
		switch {
		case next > lo && next < hi:
		case math.IsInf(hi, 1):
			next = 2 * t
		default:
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-t) <= 1e-15*t || next == lo || next == hi || math.IsInf(next, 1) {
			return next
		}
		t = next
	}
	return t
}

// studentLogNorm returns log(Γ((ν+1)/2)/(√(νπ)·Γ(ν/2))), the log of the t
// density at 0.
func studentLogNorm(nu float64) float64 {
	a, _ := math.Lgamma((nu + 1) / 2)
	b, _ := math.Lgamma(nu / 2)
	return a - b - 0.5*math.Log(nu*math.Pi)
}

// studentPDF returns the t density (1 + t²/ν)^(−(ν+1)/2) times exp(logNorm).
func studentPDF(t, nu, logNorm float64) float64 {
	return math.Exp(logNorm - (nu+1)/2*math.Log1p(t*t/nu))
}
