package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// want lists the expected figures of a non-empty summary.
type want struct {
	count                                           int64
	sum, mean, median, mode, variance, sd, min, max float64
}

func assertSummary(t *testing.T, s Summary, w want) {
	t.Helper()
	if s.Count != w.count {
		t.Errorf("Count = %d, want %d", s.Count, w.count)
	}
	const tol = 1e-12
	assertPtr(t, "Sum", s.Sum, w.sum, tol)
	assertPtr(t, "Mean", s.Mean, w.mean, tol)
	assertPtr(t, "Median", s.Median, w.median, tol)
	assertPtr(t, "Mode", s.Mode, w.mode, tol)
	assertPtr(t, "Variance", s.Variance, w.variance, tol)
	assertPtr(t, "StdDev", s.StdDev, w.sd, tol)
	assertPtr(t, "Min", s.Min, w.min, tol)
	assertPtr(t, "Max", s.Max, w.max, tol)
}

func TestSummarizeHandComputed(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   want
		meanCI Interval
	}{
		{
			// Σ = 10, mean = 2.5; deviations ±0.5, ±1.5 → Σd² = 5,
			// variance = 5/4 = 1.25, sd = √1.25 = 1.1180339887498949;
			// median = x₍⌈2⌉₎ = 2; every value once → mode = smallest = 1.
			// s = √(5/3) = 1.2909944487358056, t_{0.975,3} = 3.182446305284263,
			// half-width = 3.182446305284263·1.2909944487358056/√4 = 2.054260256760879.
			name:   "one to four",
			values: []float64{4, 2, 1, 3},
			want:   want{4, 10, 2.5, 2, 1, 1.25, 1.1180339887498949, 1, 4},
			meanCI: Interval{2.5 - 2.054260256760879, 2.5 + 2.054260256760879},
		},
		{
			// Σ = 4, mean = 2, deviations ±1 → variance 1, sd 1; median =
			// x₍1₎ = 1. s = √2, half-width = t_{0.975,1}·√2/√2 = 12.706204736174707.
			name:   "two values",
			values: []float64{3, 1},
			want:   want{2, 4, 2, 1, 1, 1, 1, 1, 3},
			meanCI: Interval{2 - 12.706204736174707, 2 + 12.706204736174707},
		},
		{
			// Sorted −3, −2, −1, 4: Σ = −2, mean = −0.5; deviations −2.5,
			// −1.5, −0.5, 4.5 → Σd² = 6.25 + 2.25 + 0.25 + 20.25 = 29,
			// variance = 7.25, sd = √7.25; median = x₍2₎ = −2.
			// s = √(29/3), half-width = 3.182446305284263·√(29/3)/2.
			name:   "negative values",
			values: []float64{-3, -1, -2, 4},
			want:   want{4, -2, -0.5, -2, -3, 7.25, math.Sqrt(7.25), -3, 4},
			meanCI: Interval{
				-0.5 - 3.182446305284263*math.Sqrt(29.0/3)/2,
				-0.5 + 3.182446305284263*math.Sqrt(29.0/3)/2,
			},
		},
		{
			// 1e9 + {1, 2, 3, 4}: the naive Σx² − n·mean² loses everything
			// here; the two-pass variance is still exactly 1.25.
			name:   "large offset keeps the variance",
			values: []float64{1e9 + 1, 1e9 + 2, 1e9 + 3, 1e9 + 4},
			want:   want{4, 4e9 + 10, 1e9 + 2.5, 1e9 + 2, 1e9 + 1, 1.25, 1.1180339887498949, 1e9 + 1, 1e9 + 4},
			meanCI: Interval{1e9 + 2.5 - 2.054260256760879, 1e9 + 2.5 + 2.054260256760879},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.values, 0.95)
			assertSummary(t, s, tt.want)
			if s.Confidence != 0.95 {
				t.Errorf("Confidence = %v, want 0.95", s.Confidence)
			}
			if s.MeanCI == nil {
				t.Fatal("MeanCI is absent")
			}
			assertClose(t, "MeanCI.Lo", s.MeanCI.Lo, tt.meanCI.Lo, 1e-12)
			assertClose(t, "MeanCI.Hi", s.MeanCI.Hi, tt.meanCI.Hi, 1e-12)
		})
	}
}

func TestSummarizePercentilesOfSequences(t *testing.T) {
	// In 1..n the value at rank r is r itself, so each percentile is its rank.
	tests := []struct {
		name string
		n    int
		want []float64 // p0.1 … p99.9
	}{
		// ⌈q·10⌉: 1, 1, 1, 1, 3, 5, 8, 9, 10, 10, 10. p90 is 9, not 10.
		{"one to ten", 10, []float64{1, 1, 1, 1, 3, 5, 8, 9, 10, 10, 10}},
		// ⌈q·1000⌉ = q·1000 exactly. p99.9 is 999, not 1000.
		{"one to thousand", 1000, []float64{1, 10, 50, 100, 250, 500, 750, 900, 950, 990, 999}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := seq(1, tt.n)
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(values), func(i, j int) {
				values[i], values[j] = values[j], values[i]
			})
			s := Summarize(values, 0)
			for i, p := range s.Percentiles {
				assertPtr(t, p.Level.Key(), p.Value, tt.want[i], 0)
				if got, ok := s.Percentile(p.Level); !ok || got != tt.want[i] {
					t.Errorf("Percentile(%s) = %v, %v; want %v", p.Level, got, ok, tt.want[i])
				}
				assertNil(t, p.Level.Key()+" CI", p.CI)
			}
			assertPtr(t, "Median", s.Median, tt.want[5], 0)
		})
	}
}

func TestSummarizeMode(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
		want   float64
	}{
		{"ties go to the smallest", []float64{3, 1, 2, 3, 1}, 1},
		{"most frequent wins over smaller", []float64{5, 2, 5, 5}, 5},
		{"all distinct gives the minimum", []float64{9, 7, 8}, 7},
		{"negative tie", []float64{4, -1, 4, -1, 0}, -1},
		{"single value", []float64{2.5}, 2.5},
		{"zero and negative zero are one value", []float64{0, math.Copysign(0, -1), 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertPtr(t, "Mode", Summarize(tt.values, 0).Mode, tt.want, 0)
		})
	}
}

func TestSummarizeAbsentFigures(t *testing.T) {
	tests := []struct {
		name   string
		values []float64
	}{
		{"nil slice", nil},
		{"empty slice", []float64{}},
		{"only NaN", []float64{math.NaN(), math.NaN()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarize(tt.values, 0.95)
			if s.Count != 0 {
				t.Errorf("Count = %d, want 0", s.Count)
			}
			for name, p := range map[string]*float64{
				"Sum": s.Sum, "Mean": s.Mean, "Median": s.Median, "Mode": s.Mode,
				"Variance": s.Variance, "StdDev": s.StdDev, "Min": s.Min, "Max": s.Max,
			} {
				assertNil(t, name, p)
			}
			assertNil(t, "MeanCI", s.MeanCI)
			if len(s.Percentiles) != len(Levels()) {
				t.Fatalf("len(Percentiles) = %d, want %d", len(s.Percentiles), len(Levels()))
			}
			for i, p := range s.Percentiles {
				if p.Level != Levels()[i] {
					t.Errorf("Percentiles[%d].Level = %v, want %v", i, p.Level, Levels()[i])
				}
				assertNil(t, p.Level.Key(), p.Value)
				assertNil(t, p.Level.Key()+" CI", p.CI)
			}
			if _, ok := s.Percentile(P50); ok {
				t.Error("Percentile(p50) is present in an empty summary")
			}
		})
	}
}

func TestSummarizeSingleValue(t *testing.T) {
	// n = 1: the population variance is 0/1 = 0 and every percentile is the
	// value; the mean interval needs n ≥ 2 and no percentile interval can be
	// placed ((1 − q)¹ and q¹ both exceed 0.025 for every level).
	s := Summarize([]float64{7}, 0.95)
	assertSummary(t, s, want{1, 7, 7, 7, 7, 0, 0, 7, 7})
	assertNil(t, "MeanCI", s.MeanCI)
	for _, p := range s.Percentiles {
		assertPtr(t, p.Level.Key(), p.Value, 7, 0)
		assertNil(t, p.Level.Key()+" CI", p.CI)
	}
}

func TestSummarizeAllEqual(t *testing.T) {
	// A constant sample: variance exactly 0 and a degenerate mean interval,
	// even for 0.1, whose running sum is not exactly a multiple of 0.1.
	values := slices.Repeat([]float64{0.1}, 1000)
	s := Summarize(values, 0.95)
	assertPtr(t, "Mean", s.Mean, 0.1, 0)
	assertPtr(t, "Variance", s.Variance, 0, 0)
	assertPtr(t, "StdDev", s.StdDev, 0, 0)
	if s.MeanCI == nil || s.MeanCI.Lo != 0.1 || s.MeanCI.Hi != 0.1 {
		t.Errorf("MeanCI = %+v, want [0.1, 0.1]", s.MeanCI)
	}
	for _, p := range s.Percentiles {
		assertPtr(t, p.Level.Key(), p.Value, 0.1, 0)
		// n = 1000 bounds every level but p0.1 and p99.9 (they need 3688).
		if p.Level == P001 || p.Level == P999 {
			assertNil(t, p.Level.Key()+" CI", p.CI)
			continue
		}
		if p.CI == nil || p.CI.Lo != 0.1 || p.CI.Hi != 0.1 {
			t.Errorf("%s CI = %+v, want [0.1, 0.1]", p.Level, p.CI)
		}
	}
}

func TestSummarizeExtremeMagnitudes(t *testing.T) {
	t.Run("mean of values near the float64 maximum", func(t *testing.T) {
		// Σ = 5e308 overflows float64, so Sum is +Inf (the true sum is not
		// representable), but the mean 5e308/3 = 1.6666…e308 is, and so is
		// the standard deviation: deviations (1/30, 1/30, −2/30)·1e308,
		// Σd²/3 = (6/900)/3·1e616 → sd = √(2/900)·1e308 = 4.714045207910317e306.
		// The variance, 2.2e613, is beyond float64 and reads +Inf.
		s := Summarize([]float64{1.7e308, 1.7e308, 1.6e308}, 0.95)
		assertPtr(t, "Mean", s.Mean, 5e308/3, 1e-15)
		assertPtr(t, "StdDev", s.StdDev, math.Sqrt(2.0/900)*1e308, 1e-12)
		assertPtr(t, "Sum", s.Sum, math.Inf(1), 0)
		assertPtr(t, "Variance", s.Variance, math.Inf(1), 0)
		// s = √(Σd²/2) = √(1/300)·1e308, half-width = t_{0.975,2}·s/√3 =
		// 4.302652729749464·1e308/30 = 1.434217576583155e307. The upper bound
		// 1.81e308 is beyond float64 and reads +Inf; the lower one is finite.
		if s.MeanCI == nil {
			t.Fatal("MeanCI is absent")
		}
		assertClose(t, "MeanCI.Lo", s.MeanCI.Lo, 5e308/3-4.302652729749464e308/30, 1e-12)
		assertClose(t, "MeanCI.Hi", s.MeanCI.Hi, math.Inf(1), 0)
	})
	t.Run("scaling by a power of two scales exactly", func(t *testing.T) {
		// Multiplying by 2^k is exact, so every figure scales exactly (and
		// the variance by 4^k) for 1e300-sized and 1e-300-sized values.
		base := []float64{0.3, 1.7, 2.9, 2.9, 5.1, 8.25}
		ref := Summarize(base, 0.95)
		for _, k := range []int{990, -990} {
			scaled := make([]float64, len(base))
			for i, v := range base {
				scaled[i] = math.Ldexp(v, k)
			}
			s := Summarize(scaled, 0.95)
			assertPtr(t, "Mean", s.Mean, math.Ldexp(*ref.Mean, k), 1e-15)
			assertPtr(t, "StdDev", s.StdDev, math.Ldexp(*ref.StdDev, k), 1e-15)
			assertPtr(t, "Sum", s.Sum, math.Ldexp(*ref.Sum, k), 1e-15)
			assertPtr(t, "Max", s.Max, math.Ldexp(8.25, k), 0)
			assertClose(t, "MeanCI.Lo", s.MeanCI.Lo, math.Ldexp(ref.MeanCI.Lo, k), 1e-15)
			assertClose(t, "MeanCI.Hi", s.MeanCI.Hi, math.Ldexp(ref.MeanCI.Hi, k), 1e-15)
		}
	})
	t.Run("opposite huge values", func(t *testing.T) {
		// [1e300, −1e300]: mean 0, population sd exactly 1e300.
		s := Summarize([]float64{1e300, -1e300}, 0)
		assertPtr(t, "Mean", s.Mean, 0, 0)
		assertPtr(t, "StdDev", s.StdDev, 1e300, 1e-15)
	})
}

func TestSummarizeInputHandling(t *testing.T) {
	t.Run("input is not modified", func(t *testing.T) {
		values := []float64{5, 3, math.NaN(), 1, 4}
		before := slices.Clone(values)
		Summarize(values, 0.95)
		for i := range values {
			if values[i] != before[i] && !(math.IsNaN(values[i]) && math.IsNaN(before[i])) {
				t.Fatalf("values changed: %v, was %v", values, before)
			}
		}
	})
	t.Run("NaN values are skipped", func(t *testing.T) {
		// {1, 2}: count 2, mean 1.5, variance 0.25.
		s := Summarize([]float64{math.NaN(), 2, 1, math.NaN()}, 0)
		assertSummary(t, s, want{2, 3, 1.5, 1, 1, 0.25, 0.5, 1, 2})
	})
}

func TestSummarizeConfidenceDisabled(t *testing.T) {
	for _, c := range []float64{0, math.NaN(), 1, 1.5, -0.1} {
		s := Summarize(seq(1, 5000), c)
		if s.Confidence != 0 {
			t.Errorf("confidence %v: Confidence = %v, want 0", c, s.Confidence)
		}
		assertNil(t, "MeanCI", s.MeanCI)
		for _, p := range s.Percentiles {
			assertNil(t, p.Level.Key()+" CI", p.CI)
		}
	}
}

func TestSummarizePercentileIntervals(t *testing.T) {
	t.Run("median of ten", func(t *testing.T) {
		// Ranks [2, 9] (see TestPercentileRanksHandComputed) of the sorted
		// 10, 20, …, 100 give [20, 90].
		values := []float64{70, 10, 100, 40, 30, 90, 20, 60, 80, 50}
		s := Summarize(values, 0.95)
		ci := s.Percentiles[slices.Index(Levels(), P50)].CI
		if ci == nil || ci.Lo != 20 || ci.Hi != 90 {
			t.Errorf("p50 CI = %+v, want [20, 90]", ci)
		}
	})
	t.Run("p95 appears at 72 values", func(t *testing.T) {
		// At n = 71 no upper rank exists (0.95⁷¹ = 0.0262 > 0.025). At
		// n = 72, 0.95⁷² = 0.0249 ≤ 0.025 gives u = 72, and l = 64 (see
		// TestPercentileRanksMatchExactArithmetic), so in 1..72 the interval is [64, 72].
		i := slices.Index(Levels(), P95)
		assertNil(t, "p95 CI at 71", Summarize(seq(1, 71), 0.95).Percentiles[i].CI)
		ci := Summarize(seq(1, 72), 0.95).Percentiles[i].CI
		if ci == nil || ci.Lo != 64 || ci.Hi != 72 {
			t.Errorf("p95 CI at 72 = %+v, want [64, 72]", ci)
		}
	})
}

func TestSummarizeInvariants(t *testing.T) {
	// For random samples of many shapes: percentiles are ordered and lie in
	// [min, max]; each interval contains its percentile; the mean interval
	// contains the mean; the median is p50.
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		n := 1 + r.IntN(400)
		values := make([]float64, n)
		for i := range values {
			switch trial % 3 {
			case 0:
				values[i] = r.ExpFloat64()
			case 1:
				values[i] = float64(r.IntN(5)) // many ties
			default:
				values[i] = r.NormFloat64() * 1e6
			}
		}
		s := Summarize(values, 0.9)
		prev := *s.Min
		for _, p := range s.Percentiles {
			v := *p.Value
			if v < prev || v > *s.Max {
				t.Fatalf("trial %d: %s = %v out of order (previous %v, max %v)", trial, p.Level, v, prev, *s.Max)
			}
			if p.CI != nil && (p.CI.Lo > v || p.CI.Hi < v) {
				t.Fatalf("trial %d: %s CI %+v excludes %v", trial, p.Level, *p.CI, v)
			}
			prev = v
		}
		if *s.Median != *s.Percentiles[slices.Index(Levels(), P50)].Value {
			t.Fatalf("trial %d: median %v is not p50", trial, *s.Median)
		}
		if *s.Mean < *s.Min || *s.Mean > *s.Max {
			t.Fatalf("trial %d: mean %v outside [%v, %v]", trial, *s.Mean, *s.Min, *s.Max)
		}
		if n >= 2 && (s.MeanCI.Lo > *s.Mean || s.MeanCI.Hi < *s.Mean) {
			t.Fatalf("trial %d: mean CI %+v excludes %v", trial, *s.MeanCI, *s.Mean)
		}
	}
}
