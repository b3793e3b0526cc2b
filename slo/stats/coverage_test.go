package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// coverageReps is the number of simulated samples per coverage check; the
// Monte-Carlo standard error of a coverage near 0.95 is then
// √(0.95·0.05/5000) ≈ 0.0031.
const coverageReps = 5000

// assertCoverage checks that hits/reps is within three Monte-Carlo standard
// errors of the exact coverage p.
func assertCoverage(t *testing.T, hits int, p float64) {
	t.Helper()
	got := float64(hits) / coverageReps
	se := math.Sqrt(p * (1 - p) / coverageReps)
	if math.Abs(got-p) > 3*se {
		t.Errorf("empirical coverage %.4f, exact %.4f ± 3·%.4f", got, p, se)
	}
}

func TestPercentileIntervalCoverage(t *testing.T) {
	// Samples from Exponential(1), whose q-quantile is ξ = −log(1 − q). With
	// B = #{xᵢ ≤ ξ} ~ Bin(n, q): x₍ₗ₎ ≤ ξ ⇔ B ≥ l and x₍ᵤ₎ ≥ ξ ⇔ B ≤ u − 1,
	// so the exact coverage of the chosen ranks is P(l ≤ B ≤ u − 1).
	tests := []struct {
		name  string
		level Level
		n     int
	}{
		{"median of 100", P50, 100},
		{"p90 of 100", P90, 100},
		{"p25 of 60", P25, 60},
		{"p95 of 150", P95, 150},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := PercentileRanks(int64(tt.n), tt.level, 0.95)
			if !r.Complete() {
				t.Fatalf("no interval for %s at n = %d", tt.level, tt.n)
			}
			pmf := binomialTerms(int64(tt.n), tt.level.Float())
			exact := 0.0
			for b := r.Lower; b <= r.Upper-1; b++ {
				exact += pmf[b]
			}
			if exact < 0.95 {
				t.Fatalf("exact coverage %.4f of ranks %+v is below 0.95", exact, r)
			}
			xi := -math.Log1p(-tt.level.Float())
			rng := rand.New(rand.NewPCG(uint64(i)+1, 0x5eed))
			values := make([]float64, tt.n)
			li := slices.Index(Levels(), tt.level)
			hits := 0
			for range coverageReps {
				for j := range values {
					values[j] = rng.ExpFloat64()
				}
				ci := Summarize(values, 0.95).Percentiles[li].CI
				if ci.Lo <= xi && xi <= ci.Hi {
					hits++
				}
			}
			assertCoverage(t, hits, exact)
		})
	}
}

func TestMeanIntervalCoverage(t *testing.T) {
	// Normal samples make the t interval exact: coverage 0.95.
	tests := []struct {
		name        string
		n           int
		mean, sigma float64
		confidence  float64
	}{
		{"thirty values at 0.95", 30, 3, 2, 0.95},
		{"five values at 0.95", 5, -1, 0.5, 0.95},
		{"fifty values at 0.9", 50, 100, 10, 0.9},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i)+17, 0xc0ffee))
			values := make([]float64, tt.n)
			hits := 0
			for range coverageReps {
				for j := range values {
					values[j] = tt.mean + tt.sigma*rng.NormFloat64()
				}
				ci := Summarize(values, tt.confidence).MeanCI
				if ci.Lo <= tt.mean && tt.mean <= ci.Hi {
					hits++
				}
			}
			assertCoverage(t, hits, tt.confidence)
		})
	}
}
