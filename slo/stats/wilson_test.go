package stats

import (
	"math"
	"testing"
)

func TestWilson(t *testing.T) {
	// z = 1.959963984540054 at 0.95, z² = 3.841458820694124.
	tests := []struct {
		name       string
		successes  int64
		n          int64
		confidence float64
		lo, hi     float64
	}{
		{
			// p̂ = 0.8, z²/n = 0.38414588: centre = (0.8 + 0.19207294)/1.38414588
			// = 0.71674432; half = 1.95996398/1.38414588·√(0.016 + 0.00960365)
			// = 1.41601187·0.16001140 = 0.22657804 → [0.49016247, 0.94332178].
			name: "eight of ten", successes: 8, n: 10, confidence: 0.95,
			lo: 0.4901624715366418, hi: 0.9433178485456247,
		},
		{
			// p̂ = 0.5, z²/n = 0.03841459: centre 0.5, half =
			// 1.95996398/1.03841459·√(0.0025 + 0.00009604) = 1.88745806·0.05095131
			// = 0.09616847 → [0.40383153, 0.59616847].
			name: "half of a hundred", successes: 50, n: 100, confidence: 0.95,
			lo: 0.4038315303659957, hi: 0.5961684696340044,
		},
		{
			// No successes: lo = 0, hi = z²/(n + z²) = 3.84145882/13.84145882.
			name: "none of ten", successes: 0, n: 10, confidence: 0.95,
			lo: 0, hi: 3.841458820694124 / 13.841458820694124,
		},
		{
			// All successes: the mirror image, hi = 1.
			name: "ten of ten", successes: 10, n: 10, confidence: 0.95,
			lo: 10 / 13.841458820694124, hi: 1,
		},
		{
			// 990 of 1000 at 0.99, z = 2.5758293035489, z²/n = 0.00663490:
			// centre = (0.99 + 0.00331745)/1.00663490 = 0.98677033; half =
			// 2.57582930/1.00663490·√(0.0000099 + 0.00000166) = 2.55885159·0.00339981
			// = 0.00869962 → [0.97807071, 0.99546994].
			name: "99 percent attainment", successes: 990, n: 1000, confidence: 0.99,
			lo: 0.9780707139163345, hi: 0.9954699444783268,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, ok := Wilson(tt.successes, tt.n, tt.confidence)
			if !ok {
				t.Fatal("ok = false")
			}
			assertClose(t, "lo", lo, tt.lo, 1e-8)
			assertClose(t, "hi", hi, tt.hi, 1e-8)
		})
	}
}

func TestWilsonInvalid(t *testing.T) {
	tests := []struct {
		name       string
		successes  int64
		n          int64
		confidence float64
	}{
		{"no trials", 0, 0, 0.95},
		{"negative trials", 0, -1, 0.95},
		{"more successes than trials", 11, 10, 0.95},
		{"negative successes", -1, 10, 0.95},
		{"confidence zero", 5, 10, 0},
		{"confidence one", 5, 10, 1},
		{"confidence NaN", 5, 10, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if lo, hi, ok := Wilson(tt.successes, tt.n, tt.confidence); ok || lo != 0 || hi != 0 {
				t.Errorf("Wilson = %v, %v, %v; want 0, 0, false", lo, hi, ok)
			}
		})
	}
}

// TestWilsonProportion: the interval of a proportion matches Wilson's for
// the same successes, and p = 0.95 of 24 trials is [0.7858864, 0.9899350]
// (z²/n = 0.1600608: centre (0.95 + 0.0800304)/1.1600608 = 0.8879107,
// half-width 1.6895356·√(0.0019792 + 0.0016673) = 0.1020243).
func TestWilsonProportion(t *testing.T) {
	lo, hi, ok := WilsonProportion(0.95, 24, 0.95)
	if !ok || math.Abs(lo-0.7858864) > 1e-6 || math.Abs(hi-0.9899350) > 1e-6 {
		t.Errorf("WilsonProportion(0.95, 24) = [%v, %v] %v; want [0.7858864, 0.9899350]", lo, hi, ok)
	}
	wlo, whi, _ := Wilson(8, 10, 0.95)
	if plo, phi, _ := WilsonProportion(0.8, 10, 0.95); plo != wlo || phi != whi {
		t.Errorf("proportion 0.8 of 10: [%v, %v], Wilson 8 of 10: [%v, %v]", plo, phi, wlo, whi)
	}
	for _, bad := range []struct {
		p float64
		n int64
		c float64
	}{{-0.1, 10, 0.95}, {1.1, 10, 0.95}, {math.NaN(), 10, 0.95}, {0.5, 0, 0.95}, {0.5, 10, 1}} {
		if _, _, ok := WilsonProportion(bad.p, bad.n, bad.c); ok {
			t.Errorf("WilsonProportion(%v, %d, %v) ok", bad.p, bad.n, bad.c)
		}
	}
}
