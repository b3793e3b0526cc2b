package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// SummarizeSorted of sorted values is Summarize of the same values, bit
// for bit, with and without intervals; unsorted or NaN-holding input is
// summarized as Summarize would.
func TestSummarizeSortedMatchesSummarize(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 7, 100, 5000} {
		values := make([]float64, n)
		for i := range values {
			values[i] = math.Round(rng.ExpFloat64()*100) / 100 // ties, so the mode matters
		}
		sorted := slices.Clone(values)
		slices.Sort(sorted)
		for _, c := range []float64{0, 0.95} {
			want := Summarize(values, c)
			if got := SummarizeSorted(sorted, c); !reflect.DeepEqual(got, want) {
				t.Errorf("n=%d c=%v: sorted %+v, want %+v", n, c, got, want)
			}
			if n > 2 && !slices.IsSorted(values) {
				if got := SummarizeSorted(values, c); !reflect.DeepEqual(got, want) {
					t.Errorf("n=%d c=%v: unsorted input summarized as %+v, want %+v", n, c, got, want)
				}
			}
		}
	}
	nan := []float64{math.NaN(), 1, 2}
	if got, want := SummarizeSorted(nan, 0.95), Summarize(nan, 0.95); !reflect.DeepEqual(got, want) || got.Count != 2 {
		t.Errorf("NaN first: %+v, want %+v (count 2)", got, want)
	}
}

// The branch-free compensated sum gives Neumaier's result bit for bit: both
// accumulate the exact rounding error of each addition. Sums of mixed
// signs and magnitudes, and of deviations hovering around zero.
func TestCompensatedIsNeumaier(t *testing.T) {
	neumaier := func(xs []float64) float64 {
		var sum, c float64
		for _, x := range xs {
			s := sum + x
			if math.Abs(sum) >= math.Abs(x) {
				c += (sum - s) + x
			} else {
				c += (x - s) + sum
			}
			sum = s
		}
		return sum + c
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 200 {
		xs := make([]float64, 1+rng.IntN(500))
		for i := range xs {
			xs[i] = rng.NormFloat64() * math.Ldexp(1, rng.IntN(80)-40)
			if trial%2 == 0 {
				xs[i] = rng.Float64() - 0.5
			}
		}
		var k compensated
		for _, x := range xs {
			k.add(x)
		}
		if got, want := k.value(), neumaier(xs); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: %v, Neumaier %v", trial, got, want)
		}
	}
}
