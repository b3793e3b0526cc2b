package stats

import (
	"math"
	"math/big"
	"testing"
)

func TestPercentileRanksHandComputed(t *testing.T) {
	tests := []struct {
		name  string
		n     int64
		level Level
		c     float64
		want  Ranks
	}{
		{
			// B ~ Bin(10, ½): P(B ≤ 1) = 11/1024 ≈ 0.0107 ≤ 0.025 and
			// P(B ≤ 2) = 56/1024 ≈ 0.0547 > 0.025, so l − 1 = 1, l = 2; by
			// symmetry P(B ≥ 9) = 11/1024 ≤ 0.025 < P(B ≥ 8), so u = 9.
			name: "median of ten", n: 10, level: P50, c: 0.95,
			want: Ranks{Lower: 2, Upper: 9, HasLower: true, HasUpper: true},
		},
		{
			// Bin(6, ½): P(B = 0) = 1/64 ≈ 0.0156 ≤ 0.025 < P(B ≤ 1) = 7/64,
			// so l = 1; P(B = 6) = 1/64 ≤ 0.025 < P(B ≥ 5) = 7/64, so u = 6.
			name: "median of six", n: 6, level: P50, c: 0.95,
			want: Ranks{Lower: 1, Upper: 6, HasLower: true, HasUpper: true},
		},
		{
			// Bin(5, ½): P(B = 0) = P(B = 5) = 1/32 = 0.03125 > 0.025.
			name: "median of five has no interval", n: 5, level: P50, c: 0.95,
			want: Ranks{},
		},
		{
			// Bin(10, ½) at 0.9: P(B ≤ 1) = 11/1024 ≤ 0.05 < 56/1024, so l = 2,
			// and P(B ≥ 9) ≤ 0.05 < P(B ≥ 8): u = 9, the same as at 0.95.
			name: "median of ten at 0.9", n: 10, level: P50, c: 0.9,
			want: Ranks{Lower: 2, Upper: 9, HasLower: true, HasUpper: true},
		},
		{
			// Bin(20, ½) at 0.9: P(B ≤ 5) = 21700/1048576 ≈ 0.0207 ≤ 0.05 and
			// P(B ≤ 6) = 60460/1048576 ≈ 0.0577 > 0.05, so l = 6; u = 15.
			name: "median of twenty at 0.9", n: 20, level: P50, c: 0.9,
			want: Ranks{Lower: 6, Upper: 15, HasLower: true, HasUpper: true},
		},
		{
			// Bin(10, 0.9): P(B ≤ 6) = 0.0128 ≤ 0.025 < P(B ≤ 7) = 0.0702, so
			// l = 7; P(B = 10) = 0.9¹⁰ = 0.349 > 0.025, so no upper rank.
			name: "p90 of ten has only a lower bound", n: 10, level: P90, c: 0.95,
			want: Ranks{Lower: 7, HasLower: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PercentileRanks(tt.n, tt.level, tt.c)
			if got != tt.want {
				t.Errorf("PercentileRanks(%d, %s, %v) = %+v, want %+v", tt.n, tt.level, tt.c, got, tt.want)
			}
			if got.Complete() != (tt.want.HasLower && tt.want.HasUpper) {
				t.Errorf("Complete() = %v", got.Complete())
			}
		})
	}
}

func TestPercentileRanksAppearance(t *testing.T) {
	// The smallest n with a bound: qⁿ ≤ α/2 for the upper one, (1 − q)ⁿ ≤ α/2
	// for the lower one. At 0.95: 0.95⁷¹ = 0.02620, 0.95⁷² = 0.02489;
	// 0.99³⁶⁷ = 0.02501, 0.99³⁶⁸ = 0.02476; 0.999³⁶⁸⁷ = 0.025004,
	// 0.999³⁶⁸⁸ = 0.024979; 0.5⁵ = 0.03125, 0.5⁶ = 0.015625.
	tests := []struct {
		name  string
		level Level
		upper bool
		first int64
	}{
		{"p95 upper", P95, true, 72},
		{"p99 upper", P99, true, 368},
		{"p99.9 upper", P999, true, 3688},
		{"p5 lower", P05, false, 72},
		{"p1 lower", P01, false, 368},
		{"p0.1 lower", P001, false, 3688},
		{"p50 lower", P50, false, 6},
		{"p50 upper", P50, true, 6},
		// 0.9³⁵ = 0.0250 > 0.025 (0.025031), 0.9³⁶ = 0.0225.
		{"p90 upper", P90, true, 36},
		{"p10 lower", P10, false, 36},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			has := func(n int64) bool {
				r := PercentileRanks(n, tt.level, 0.95)
				if tt.upper {
					return r.HasUpper
				}
				return r.HasLower
			}
			if has(tt.first - 1) {
				t.Errorf("bound present at n = %d, want absent", tt.first-1)
			}
			if !has(tt.first) {
				t.Errorf("bound absent at n = %d, want present", tt.first)
			}
			// The first n follows the documented formula ⌈log(α/2)/log q⌉.
			q := tt.level.Float()
			if !tt.upper {
				q = tt.level.Complement()
			}
			if got := int64(math.Ceil(math.Log((1-0.95)/2) / math.Log(q))); got != tt.first {
				t.Errorf("⌈log(α/2)/log q⌉ = %d, want %d", got, tt.first)
			}
		})
	}
}

func TestPercentileRanksMatchExactArithmetic(t *testing.T) {
	// Ranks from exact binomial sums in big integers: with q = N/D and
	// M = D − N, P(B ≤ k)·Dⁿ = Σ_{j≤k} C(n, j)·Nʲ·Mⁿ⁻ʲ, compared with the
	// float64 α/2 taken as an exact rational.
	type point struct {
		n     int64
		level Level
	}
	var points []point
	for n := int64(1); n <= 110; n++ {
		for _, l := range Levels() {
			points = append(points, point{n, l})
		}
	}
	for _, n := range []int64{367, 368, 1000} {
		for _, l := range []Level{P01, P25, P50, P90, P99} {
			points = append(points, point{n, l})
		}
	}
	for _, n := range []int64{3687, 3688} {
		for _, l := range []Level{P001, P999} {
			points = append(points, point{n, l})
		}
	}
	for _, p := range points {
		terms := binomialIntTerms(p.n, p.level)
		for _, c := range []float64{0.8, 0.95, 0.99} {
			want := exactRanks(terms, p.level, (1-c)/2)
			if got := PercentileRanks(p.n, p.level, c); got != want {
				t.Errorf("PercentileRanks(%d, %s, %v) = %+v, exact %+v", p.n, p.level, c, got, want)
			}
		}
	}
}

// exactRanks computes PercentileRanks with exact integer arithmetic from
// the terms of binomialIntTerms.
func exactRanks(terms []*big.Int, l Level, tail float64) Ranks {
	n := int64(len(terms) - 1)
	thr := new(big.Rat).SetFloat64(tail)
	// within reports whether sum/Dⁿ ≤ α/2, i.e. sum·den ≤ num·Dⁿ.
	rhs := new(big.Int).Exp(big.NewInt(l.Den), big.NewInt(n), nil)
	rhs.Mul(rhs, thr.Num())
	lhs := new(big.Int)
	within := func(sum *big.Int) bool {
		return lhs.Mul(sum, thr.Denom()).Cmp(rhs) <= 0
	}
	var r Ranks
	sum := new(big.Int)
	for k := int64(0); k < n; k++ { // largest k with P(B ≤ k) ≤ α/2
		if sum.Add(sum, terms[k]); !within(sum) {
			break
		}
		r.Lower, r.HasLower = k+1, true
	}
	sum.SetInt64(0)
	for u := n; u >= 1; u-- { // smallest u with P(B ≥ u) ≤ α/2
		if sum.Add(sum, terms[u]); !within(sum) {
			break
		}
		r.Upper, r.HasUpper = u, true
	}
	return r
}

// binomialIntTerms returns Tⱼ = C(n, j)·Nʲ·Mⁿ⁻ʲ for j = 0..n, with
// Tⱼ₊₁ = Tⱼ·(n − j)·N / ((j + 1)·M), a division that is always exact.
func binomialIntTerms(n int64, l Level) []*big.Int {
	num, rest := big.NewInt(l.Num), big.NewInt(l.Den-l.Num)
	terms := make([]*big.Int, n+1)
	terms[0] = new(big.Int).Exp(rest, big.NewInt(n), nil)
	div := new(big.Int)
	for j := int64(0); j < n; j++ {
		next := new(big.Int).Mul(terms[j], big.NewInt(n-j))
		next.Mul(next, num)
		div.Mul(big.NewInt(j+1), rest)
		terms[j+1] = next.Quo(next, div)
	}
	return terms
}

func TestPercentileRanksLargeSamples(t *testing.T) {
	// For n in the millions the tail sums at l − 1, l, u − 1 and u agree with
	// an independent summation of binomial terms (recurrence outward from the
	// mode, relative error about n·ε), and α/2 lies between the neighbours,
	// as the definitions require.
	for _, n := range []int64{100_000, 1_000_000} {
		for _, l := range []Level{P001, P50, P95, P999} {
			r := PercentileRanks(n, l, 0.95)
			if !r.Complete() {
				t.Fatalf("n = %d %s: ranks %+v incomplete", n, l, r)
			}
			pmf := binomialTerms(n, l.Float())
			below := make([]float64, n+1) // below[k] = P(B ≤ k)
			above := make([]float64, n+2) // above[k] = P(B ≥ k)
			for j := range n + 1 {
				below[j] = pmf[j]
				if j > 0 {
					below[j] += below[j-1]
				}
			}
			for j := n; j >= 0; j-- {
				above[j] = pmf[j] + above[j+1]
			}
			cdf := func(k int64) float64 { return below[k] }
			sf := func(k int64) float64 { return above[k] }
			b := newBinomial(n, l)
			for _, k := range []int64{r.Lower - 1, r.Lower} {
				assertClose(t, "P(B ≤ k)", b.cdf(k), cdf(k), 1e-8)
			}
			for _, k := range []int64{r.Upper - 1, r.Upper} {
				assertClose(t, "P(B ≥ k)", b.sf(k), sf(k), 1e-8)
			}
			tail := (1 - 0.95) / 2
			if !(cdf(r.Lower-1) <= tail && cdf(r.Lower) > tail) {
				t.Errorf("n = %d %s: lower rank %d does not straddle α/2", n, l, r.Lower)
			}
			if !(sf(r.Upper) <= tail && sf(r.Upper-1) > tail) {
				t.Errorf("n = %d %s: upper rank %d does not straddle α/2", n, l, r.Upper)
			}
		}
	}
}

// binomialTerms returns P(B = j) for j = 0..n by the ratio recurrence
// P(j+1)/P(j) = (n − j)/(j + 1)·q/(1 − q), anchored at the mode with
// log-gamma, so no term underflows before it matters.
func binomialTerms(n int64, q float64) []float64 {
	pmf := make([]float64, n+1)
	m := int64(float64(n+1) * q)
	lgn, _ := math.Lgamma(float64(n + 1))
	lgm, _ := math.Lgamma(float64(m + 1))
	lgr, _ := math.Lgamma(float64(n - m + 1))
	pmf[m] = math.Exp(lgn - lgm - lgr + float64(m)*math.Log(q) + float64(n-m)*math.Log1p(-q))
	ratio := q / (1 - q)
	for j := m; j < n; j++ {
		pmf[j+1] = pmf[j] * float64(n-j) / float64(j+1) * ratio
	}
	for j := m; j > 0; j-- {
		pmf[j-1] = pmf[j] * float64(j) / float64(n-j+1) / ratio
	}
	return pmf
}

func TestPercentileRanksInvalidInput(t *testing.T) {
	tests := []struct {
		name  string
		n     int64
		level Level
		c     float64
	}{
		{"no values", 0, P50, 0.95},
		{"negative count", -3, P50, 0.95},
		{"invalid level", 100, Level{0, 1}, 0.95},
		{"confidence zero", 100, P50, 0},
		{"confidence one", 100, P50, 1},
		{"confidence NaN", 100, P50, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PercentileRanks(tt.n, tt.level, tt.c); got != (Ranks{}) {
				t.Errorf("PercentileRanks = %+v, want none", got)
			}
		})
	}
}

func TestPercentileRanksMatchDirectSearch(t *testing.T) {
	// The ranks found by walking from the normal guess equal those of a
	// plain scan of the distribution function, for many sizes and levels.
	var ns []int64
	for n := int64(1); n <= 200; n++ {
		ns = append(ns, n)
	}
	for n := int64(211); n <= 20_000; n += 397 {
		ns = append(ns, n)
	}
	for _, c := range []float64{0.5, 0.95, 0.999} {
		tail := (1 - c) / 2
		for _, n := range ns {
			for _, l := range Levels() {
				b := newBinomial(n, l)
				var want Ranks
				if b.cdf(0) <= tail {
					k := lastTrue(0, n-1, func(k int64) bool { return b.cdf(k) <= tail })
					want.Lower, want.HasLower = k+1, true
				}
				if b.sf(n) <= tail {
					k := lastTrue(0, n-1, func(k int64) bool { return b.sf(k) > tail })
					want.Upper, want.HasUpper = k+1, true
				}
				if got := PercentileRanks(n, l, c); got != want {
					t.Fatalf("PercentileRanks(%d, %s, %v) = %+v, scan %+v", n, l, c, got, want)
				}
			}
		}
	}
}

func TestPercentileRanksCoverAtLeastConfidence(t *testing.T) {
	// Wherever both ranks exist, l ≤ ⌈q·n⌉ ≤ u and the exact coverage
	// P(l ≤ B ≤ u − 1) is at least c.
	for _, c := range []float64{0.9, 0.95, 0.99} {
		for n := int64(1); n <= 400; n++ {
			for _, l := range Levels() {
				r := PercentileRanks(n, l, c)
				if !r.Complete() {
					continue
				}
				if rank := int64(l.Rank(int(n))); r.Lower > rank || r.Upper < rank {
					t.Fatalf("n = %d %s: ranks %+v exclude the percentile's rank %d", n, l, r, rank)
				}
				pmf := binomialTerms(n, l.Float())
				cover := 0.0
				for b := r.Lower; b < r.Upper; b++ {
					cover += pmf[b]
				}
				if cover < c-1e-12 {
					t.Fatalf("n = %d %s at %v: coverage %.6f below the confidence", n, l, c, cover)
				}
			}
		}
	}
}

// lastTrue returns the largest k in [lo, hi] with pred(k), for pred true up
// to some point and false after it, and pred(lo) true.
func lastTrue(lo, hi int64, pred func(int64) bool) int64 {
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if pred(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}
