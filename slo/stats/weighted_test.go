package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSummarizeWeightedHandComputed(t *testing.T) {
	tests := []struct {
		name          string
		values        []float64
		weights       []int64
		count         int64
		mean, lo, hi  float64
		variance, sd  float64
		percentiles   []float64 // p0.1 … p99.9
		percentileTol float64
	}{
		{
			// ITL values with output tokens − 1 as weights. Σw = 10,
			// mean = (0.01·1 + 0.02·2 + 0.03·7)/10 = (0.01 + 0.04 + 0.21)/10 = 0.026.
			// Cumulative weights 1, 3, 10; level q needs cum·Den ≥ Num·10:
			// q·10 = 0.01, 0.1, 0.5, 1 → 0.01 (cum 1); 2.5 → 0.02 (cum 3);
			// 5, 7.5, 9, 9.5, 9.9, 9.99 → 0.03 (cum 10).
			// Variance: deviations −0.016, −0.006, 0.004; Σw·d² =
			// 0.000256·1 + 0.000036·2 + 0.000016·7 = 0.00044; ÷ 10 = 0.000044;
			// standard deviation √0.000044 = 0.0066332495807108.
			name:        "inter-token latency example",
			values:      []float64{0.03, 0.01, 0.02},
			weights:     []int64{7, 1, 2},
			count:       10,
			mean:        0.026,
			variance:    0.000044,
			sd:          0.0066332495807108,
			lo:          0.01,
			hi:          0.03,
			percentiles: []float64{0.01, 0.01, 0.01, 0.01, 0.02, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03},
		},
		{
			// Weights 3 and 1: Σw = 4, mean = (2·3 + 6·1)/4 = 3. q·4 = 3 for
			// p75 lands exactly on cum 3 → 2; p90 needs 3.6 → 6. Variance
			// (3·1² + 1·3²)/4 = 3, standard deviation √3.
			name:        "level landing exactly on a cumulative weight",
			values:      []float64{2, 6},
			weights:     []int64{3, 1},
			count:       4,
			mean:        3,
			variance:    3,
			sd:          1.7320508075688772,
			lo:          2,
			hi:          6,
			percentiles: []float64{2, 2, 2, 2, 2, 2, 2, 6, 6, 6, 6},
		},
		{
			// Zero and negative weights and NaN values are ignored: only
			// (5, 2) and (1, 2) remain; Σw = 4, mean 3, p50 needs cum ≥ 2 → 1.
			// Variance (2·2² + 2·2²)/4 = 4, standard deviation 2.
			name:        "ignored pairs",
			values:      []float64{9, 5, math.NaN(), 1, 7},
			weights:     []int64{0, 2, 4, 2, -3},
			count:       4,
			mean:        3,
			variance:    4,
			sd:          2,
			lo:          1,
			hi:          5,
			percentiles: []float64{1, 1, 1, 1, 1, 1, 5, 5, 5, 5, 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := SummarizeWeighted(tt.values, tt.weights)
			if s.Count != tt.count {
				t.Errorf("Count = %d, want %d", s.Count, tt.count)
			}
			assertPtr(t, "Mean", s.Mean, tt.mean, 1e-15)
			assertPtr(t, "Variance", s.Variance, tt.variance, 1e-15)
			assertPtr(t, "StdDev", s.StdDev, tt.sd, 1e-15)
			assertPtr(t, "Min", s.Min, tt.lo, 0)
			assertPtr(t, "Max", s.Max, tt.hi, 0)
			for i, p := range s.Percentiles {
				assertPtr(t, p.Level.Key(), p.Value, tt.percentiles[i], 0)
				assertNil(t, p.Level.Key()+" CI", p.CI)
			}
			if got, ok := s.Percentile(P50); !ok || got != tt.percentiles[5] {
				t.Errorf("Percentile(p50) = %v, %v", got, ok)
			}
		})
	}
}

func TestSummarizeWeightedExactComparison(t *testing.T) {
	// Unit weights over 1..1000: Σw = 1000 and p99.9 needs cum ≥ 999 exactly.
	// In floats 0.999·1000 is 999.0000000000001, which would wrongly skip
	// to 1000. Likewise p90 over 1..10 is 9.
	for _, tt := range []struct {
		n     int
		level Level
		want  float64
	}{
		{1000, P999, 999},
		{1000, P01, 10},
		{10, P90, 9},
		{10, P50, 5},
	} {
		values := seq(1, tt.n)
		weights := slices.Repeat([]int64{1}, tt.n)
		if got, _ := SummarizeWeighted(values, weights).Percentile(tt.level); got != tt.want {
			t.Errorf("%s of 1..%d = %v, want %v", tt.level, tt.n, got, tt.want)
		}
	}
}

func TestSummarizeWeightedMatchesUnweighted(t *testing.T) {
	// Expanding each value w times and summarizing unweighted gives the
	// same percentiles, minimum, maximum, mean, variance and standard
	// deviation (both population).
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 200 {
		n := 1 + r.IntN(60)
		values := make([]float64, n)
		weights := make([]int64, n)
		var expanded []float64
		for i := range values {
			values[i] = math.Round(r.ExpFloat64()*100) / 100
			weights[i] = int64(r.IntN(5))
			for range weights[i] {
				expanded = append(expanded, values[i])
			}
		}
		ws := SummarizeWeighted(values, weights)
		us := Summarize(expanded, 0)
		if ws.Count != us.Count {
			t.Fatalf("trial %d: Count %d, unweighted %d", trial, ws.Count, us.Count)
		}
		if us.Count == 0 {
			assertNil(t, "Mean", ws.Mean)
			continue
		}
		assertPtr(t, "Mean", ws.Mean, *us.Mean, 1e-12)
		assertPtr(t, "Variance", ws.Variance, *us.Variance, 1e-12)
		assertPtr(t, "StdDev", ws.StdDev, *us.StdDev, 1e-12)
		assertPtr(t, "Min", ws.Min, *us.Min, 0)
		assertPtr(t, "Max", ws.Max, *us.Max, 0)
		for i, p := range ws.Percentiles {
			assertPtr(t, p.Level.Key(), p.Value, *us.Percentiles[i].Value, 0)
		}
	}
}

func TestSummarizeWeightedEdges(t *testing.T) {
	t.Run("empty", func(t *testing.T) {
		s := SummarizeWeighted(nil, nil)
		if s.Count != 0 {
			t.Errorf("Count = %d, want 0", s.Count)
		}
		assertNil(t, "Mean", s.Mean)
		assertNil(t, "Variance", s.Variance)
		assertNil(t, "StdDev", s.StdDev)
		assertNil(t, "Min", s.Min)
		assertNil(t, "Max", s.Max)
		if len(s.Percentiles) != len(Levels()) {
			t.Fatalf("len(Percentiles) = %d", len(s.Percentiles))
		}
		for _, p := range s.Percentiles {
			assertNil(t, p.Level.Key(), p.Value)
		}
	})
	t.Run("only zero weights", func(t *testing.T) {
		s := SummarizeWeighted([]float64{1, 2}, []int64{0, 0})
		if s.Count != 0 || s.Mean != nil {
			t.Errorf("got Count %d, Mean %v; want 0, absent", s.Count, s.Mean)
		}
	})
	t.Run("extra elements of the longer slice are ignored", func(t *testing.T) {
		// Pairs (1, 1) and (3, 3): Σw = 4, mean = (1 + 9)/4 = 2.5.
		s := SummarizeWeighted([]float64{1, 3, 100}, []int64{1, 3})
		assertPtr(t, "Mean", s.Mean, 2.5, 1e-15)
		// (1·1.5² + 3·0.5²)/4 = (2.25 + 0.75)/4 = 0.75.
		assertPtr(t, "Variance", s.Variance, 0.75, 1e-15)
		assertPtr(t, "Max", s.Max, 3, 0)
	})
	t.Run("inputs are not modified", func(t *testing.T) {
		values, weights := []float64{3, 1, 2}, []int64{1, 5, 2}
		SummarizeWeighted(values, weights)
		if !slices.Equal(values, []float64{3, 1, 2}) || !slices.Equal(weights, []int64{1, 5, 2}) {
			t.Errorf("inputs changed: %v %v", values, weights)
		}
	})
	t.Run("huge values", func(t *testing.T) {
		// (1.7e308·1 + 1.6e308·2)/3 = 4.9e308/3 = 1.6333…e308; the naive Σ(v·w)
		// overflows.
		s := SummarizeWeighted([]float64{1.7e308, 1.6e308}, []int64{1, 2})
		assertPtr(t, "Mean", s.Mean, 1.7e308/3+1.6e308/3*2, 1e-15)
	})
	t.Run("constant value", func(t *testing.T) {
		s := SummarizeWeighted([]float64{0.1, 0.1, 0.1}, []int64{3, 7, 1})
		assertPtr(t, "Mean", s.Mean, 0.1, 0)
	})
}

// TestSummarizeWeightedVarianceHugeValues: the variance of values near
// float64's limit is computed in scaled units: 1e300 (weight 1) and 3e300
// (weight 1) have mean 2e300 and standard deviation 1e300; the variance,
// 1e600, is +Inf, and only that.
func TestSummarizeWeightedVarianceHugeValues(t *testing.T) {
	s := SummarizeWeighted([]float64{1e300, 3e300}, []int64{1, 1})
	assertPtr(t, "Mean", s.Mean, 2e300, 1e-15)
	assertPtr(t, "StdDev", s.StdDev, 1e300, 1e-15)
	if s.Variance == nil || !math.IsInf(*s.Variance, 1) {
		t.Errorf("Variance = %v, want +Inf", s.Variance)
	}
	one := SummarizeWeighted([]float64{0.05}, []int64{9})
	assertPtr(t, "Variance of one value", one.Variance, 0, 0)
	assertPtr(t, "StdDev of one value", one.StdDev, 0, 0)
}
