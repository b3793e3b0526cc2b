package stats

import (
	"math"
	"testing"
)

func TestStudentTTableValues(t *testing.T) {
	// Printed t tables give four decimals.
	tests := []struct {
		name  string
		p, nu float64
		want  float64
	}{
		{"0.975 with 1 df", 0.975, 1, 12.7062},
		{"0.975 with 3 df", 0.975, 3, 3.1824},
		{"0.975 with 9 df", 0.975, 9, 2.2622},
		{"0.975 with 29 df", 0.975, 29, 2.0452},
		{"0.975 with 120 df", 0.975, 120, 1.9799},
		{"0.995 with 4 df", 0.995, 4, 4.6041},
		{"0.95 with 10 df", 0.95, 10, 1.8125},
		{"0.999 with 30 df", 0.999, 30, 3.3852},
		{"0.975 with a million df", 0.975, 1e6, 1.9600},
		{"0.975 with infinite df", 0.975, math.Inf(1), 1.9600},
		{"lower tail is negative", 0.025, 9, -2.2622},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StudentT(tt.p, tt.nu); math.Abs(got-tt.want) > 0.5e-4 {
				t.Errorf("StudentT(%v, %v) = %.6f, want %.4f", tt.p, tt.nu, got, tt.want)
			}
		})
	}
}

func TestStudentTClosedForms(t *testing.T) {
	// Exact quantiles: ν = 1 (Cauchy) t = tan(π(p − ½)); ν = 2
	// t = (2p − 1)/√(2p(1 − p)); ν = 4 with a = 4p(1 − p),
	// t = 2·√(cos(⅓·arccos √a)/√a − 1); ν → ∞ tends to z_p, and already at
	// ν = 10⁸ differs from it by about z(z² + 1)/(4ν) ≈ 2.4e-8.
	closed := map[float64]func(p float64) float64{
		1: func(p float64) float64 { return math.Tan(math.Pi * (p - 0.5)) },
		2: func(p float64) float64 { return (2*p - 1) / math.Sqrt(2*p*(1-p)) },
		4: func(p float64) float64 {
			a := 4 * p * (1 - p)
			return 2 * math.Sqrt(math.Cos(math.Acos(math.Sqrt(a))/3)/math.Sqrt(a)-1)
		},
	}
	for nu, f := range closed {
		for _, p := range []float64{0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9999} {
			assertClose(t, "StudentT", StudentT(p, nu), f(p), 1e-12)
		}
	}
	z := NormalQuantile(0.975)
	assertClose(t, "StudentT(0.975, 1e8)", StudentT(0.975, 1e8), z+z*(z*z+1)/4e8, 1e-12)
}

func TestStudentTRoundTrip(t *testing.T) {
	for _, nu := range []float64{1, 2.5, 3, 9, 29, 100, 1e4, 1e7} {
		for _, p := range []float64{0.001, 0.1, 0.5, 0.8, 0.975, 0.999999} {
			q := StudentT(p, nu)
			assertClose(t, "StudentTCDF(StudentT(p))", StudentTCDF(q, nu), p, 1e-13)
		}
	}
}

func TestStudentTEdges(t *testing.T) {
	tests := []struct {
		name  string
		p, nu float64
		want  float64
	}{
		{"median is zero", 0.5, 7, 0},
		{"p = 1 is +Inf", 1, 7, math.Inf(1)},
		{"p = 0 is −Inf", 0, 7, math.Inf(-1)},
		{"p above one", 1.1, 7, math.NaN()},
		{"p NaN", math.NaN(), 7, math.NaN()},
		{"zero df", 0.9, 0, math.NaN()},
		{"negative df", 0.9, -1, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertClose(t, "StudentT", StudentT(tt.p, tt.nu), tt.want, 0)
		})
	}
	assertClose(t, "StudentTCDF(0)", StudentTCDF(0, 5), 0.5, 1e-15)
	assertClose(t, "StudentTCDF(+Inf)", StudentTCDF(math.Inf(1), 5), 1, 0)
	assertClose(t, "StudentTCDF(−Inf)", StudentTCDF(math.Inf(-1), 5), 0, 0)
	// ν = 1: P(T ≤ 1) = ½ + arctan(1)/π = 0.75.
	assertClose(t, "StudentTCDF(1, 1)", StudentTCDF(1, 1), 0.75, 1e-15)
	assertClose(t, "StudentTCDF(NaN)", StudentTCDF(math.NaN(), 5), math.NaN(), 0)
}

func TestNormalQuantile(t *testing.T) {
	tests := []struct {
		p, want float64
	}{
		{0.5, 0},
		{0.975, 1.959963984540054},
		{0.995, 2.5758293035489004},
		{0.025, -1.959963984540054},
		{0.8413447460685429, 1}, // Φ(1)
		{0, math.Inf(-1)},
		{1, math.Inf(1)},
		{-0.1, math.NaN()},
		{math.NaN(), math.NaN()},
	}
	for _, tt := range tests {
		assertClose(t, "NormalQuantile", NormalQuantile(tt.p), tt.want, 1e-14)
	}
}

func TestRegIncBetaClosedForms(t *testing.T) {
	// Iₓ(1, 1) = x; Iₓ(a, 1) = xᵃ; Iₓ(1, b) = 1 − (1 − x)ᵇ;
	// Iₓ(2, 3) = 6x² − 8x³ + 3x⁴ (from ∫₀ˣ 12t(1 − t)² dt); I_½(a, a) = ½.
	for _, x := range []float64{1e-6, 0.01, 0.3, 0.5, 0.77, 0.999} {
		y := 1 - x
		assertClose(t, "I(1,1)", regIncBeta(1, 1, x, y), x, 1e-14)
		assertClose(t, "I(7,1)", regIncBeta(7, 1, x, y), math.Pow(x, 7), 1e-13)
		assertClose(t, "I(1,7)", regIncBeta(1, 7, x, y), 1-math.Pow(y, 7), 1e-13)
		assertClose(t, "I(2,3)", regIncBeta(2, 3, x, y), 6*x*x-8*x*x*x+3*x*x*x*x, 1e-13)
	}
	// At the centre the fraction needs about √a terms and collects their
	// rounding: 1.3e-13 at a = 10⁶, the largest binomial size in use.
	for _, a := range []float64{0.5, 3, 1e3, 1e6} {
		assertClose(t, "I½(a,a)", regIncBeta(a, a, 0.5, 0.5), 0.5, 1e-12)
	}
	assertClose(t, "I₀", regIncBeta(2, 2, 0, 1), 0, 0)
	assertClose(t, "I₁", regIncBeta(2, 2, 1, 0), 1, 0)
}

func TestBetaPrefactorLargeArguments(t *testing.T) {
	// For integer a = n − k, b = k + 1 the prefactor xᵃyᵇ/(a·B(a, b)) is
	// C(n, k)·xⁿ⁻ᵏ·yᵏ⁺¹, the binomial term times y. With n → 2n, k = n and
	// x = y = ½: C(2n, n)/4ⁿ·½, and C(2n, n)/4ⁿ = Π_{i=1..n} (2i − 1)/(2i),
	// summed in logs here.
	for _, n := range []int{10, 1000, 100_000} {
		logTerm := 0.0
		for i := 1; i <= n; i++ {
			logTerm += math.Log1p(-1 / (2 * float64(i)))
		}
		got := betaPrefactor(float64(n), float64(n+1), 0.5, 0.5)
		assertClose(t, "C(2n, n)/4ⁿ·½", got, math.Exp(logTerm)/2, 1e-11)
	}
}
