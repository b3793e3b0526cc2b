package stats

import "math"

// regIncBeta returns the regularized incomplete beta function Iₓ(a, b) for
// a, b > 0 and 0 ≤ x ≤ 1, where y = 1 − x is passed separately so that a
// caller holding 1 − x exactly loses no precision near x = 1.
//
// It evaluates the continued fraction of DLMF 8.17.22 with the modified
// Lentz method on whichever of Iₓ(a, b) and 1 − I_y(b, a) converges fast.
// The prefactor xᵃyᵇ/(a·B(a, b)) is formed from deviances and Stirling
// remainders (betaPrefactor), so it keeps full relative precision for a and
// b in the millions, where log Γ differences would lose eight digits.
func regIncBeta(a, b, x, y float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(b, a, y, x)
	}
	return incBetaFraction(a, b, x, y)
}

// incBetaFraction returns Iₓ(a, b) from its continued fraction, without
// choosing the faster form; regIncBeta chooses.
func incBetaFraction(a, b, x, y float64) float64 {
	return betaPrefactor(a, b, x, y) * betaFraction(a, b, x)
}

// betaPrefactor returns xᵃyᵇ/(a·B(a, b)). With s = a + b, Stirling's formula
// log Γ(z) = (z − ½)log z − z + ½log 2π + S(z) turns its logarithm into
//
//	−D(a, x·s) − D(b, y·s) + ½log(b/(a·s)) − ½log 2π − S(a) − S(b) + S(s),
//
// where D(k, m) = k·log(k/m) + m − k ≥ 0 is the deviance (the terms m − k
// cancel because x·s + y·s = a + b). No large terms cancel.
func betaPrefactor(a, b, x, y float64) float64 {
	s := a + b
	l := -deviance(a, x*s) - deviance(b, y*s) + 0.5*math.Log(b/(a*s)) -
		0.5*math.Log(2*math.Pi) - stirlingRemainder(a) - stirlingRemainder(b) +
		stirlingRemainder(s)
	return math.Exp(l)
}

// deviance returns k·log(k/m) + m − k for k, m > 0. Near k = m, where the
// direct form cancels, it sums the series in v = (k − m)/(k + m):
// (k − m)·v + 2k·(v³/3 + v⁵/5 + …).
func deviance(k, m float64) float64 {
	if math.Abs(k-m) >= 0.1*(k+m) {
		return k*math.Log(k/m) + m - k
	}
	v := (k - m) / (k + m)
	sum := (k - m) * v
	term := 2 * k * v
	v2 := v * v
	for j := 3.0; ; j += 2 {
		term *= v2
		next := sum + term/j
		if next == sum {
			return sum
		}
		sum = next
	}
}

// stirlingRemainder returns S(z) = log Γ(z) − ((z − ½)log z − z + ½log 2π)
// for z > 0: from its asymptotic series Σ B₂ₖ/(2k(2k − 1)z²ᵏ⁻¹) when
// z ≥ 10, where seven terms reach full precision, and from math.Lgamma
// below, where every term is small.
func stirlingRemainder(z float64) float64 {
	if z < 10 {
		lg, _ := math.Lgamma(z)
		return lg - ((z-0.5)*math.Log(z) - z + 0.5*math.Log(2*math.Pi))
	}
	r := 1 / z
	r2 := r * r
	return r * (1.0/12 - r2*(1.0/360-r2*(1.0/1260-r2*(1.0/1680-
		r2*(1.0/1188-r2*(691.0/360360-r2/156))))))
}

// betaFraction evaluates 1/(1 + d₁/(1 + d₂/(1 + …))) with
//
//	d₂ₘ₊₁ = −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1)),
//	d₂ₘ   = m(b − m)x / ((a + 2m − 1)(a + 2m)).
//
// It converges quickly for x < (a + 1)/(a + b + 2); the number of terms grows
// like √max(a, b), which the iteration cap allows for a, b up to about 10¹⁰.
func betaFraction(a, b, x float64) float64 {
	const (
		tiny    = 1e-300
		eps     = 1e-16
		maxIter = 1 << 22
	)
	c, d := 1.0, 1.0/nonZero(1-(a+b)*x/(a+1), tiny)
	f := d
	for m := 1.0; m < maxIter; m++ {
		// Even step d₂ₘ.
		num := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / nonZero(1+num*d, tiny)
		c = nonZero(1+num/c, tiny)
		f *= c * d
		// Odd step d₂ₘ₊₁.
		num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / nonZero(1+num*d, tiny)
		c = nonZero(1+num/c, tiny)
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return f
}

// nonZero returns v, or tiny when |v| < tiny (Lentz's guard against 0).
func nonZero(v, tiny float64) float64 {
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}
