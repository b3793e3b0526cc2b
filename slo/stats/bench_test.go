package stats

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func BenchmarkSummarize(b *testing.B) {
	for _, n := range []int{100, 10_000, 1_000_000} {
		r := rand.New(rand.NewPCG(1, 1))
		values := make([]float64, n)
		for i := range values {
			values[i] = r.ExpFloat64()
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Summarize(values, 0.95)
			}
		})
	}
}

// BenchmarkSummarizeSorted is Summarize without the sort: what a window
// that keeps its values in order pays per summary.
func BenchmarkSummarizeSorted(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		r := rand.New(rand.NewPCG(1, 1))
		values := make([]float64, n)
		for i := range values {
			values[i] = r.ExpFloat64()
		}
		slices.Sort(values)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SummarizeSorted(values, 0.95)
			}
		})
	}
}

func BenchmarkSummarizeWithoutIntervals(b *testing.B) {
	for _, n := range []int{100, 10_000, 1_000_000} {
		r := rand.New(rand.NewPCG(1, 1))
		values := make([]float64, n)
		for i := range values {
			values[i] = r.ExpFloat64()
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Summarize(values, 0)
			}
		})
	}
}

func BenchmarkPercentileRanks(b *testing.B) {
	for _, n := range []int64{100, 10_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, l := range Levels() {
					PercentileRanks(n, l, 0.95)
				}
			}
		})
	}
}

func BenchmarkStudentT(b *testing.B) {
	for _, nu := range []float64{9, 999, 999_999} {
		b.Run(fmt.Sprintf("nu=%g", nu), func(b *testing.B) {
			for b.Loop() {
				StudentT(0.975, nu)
			}
		})
	}
}

func BenchmarkSummarizeWeighted(b *testing.B) {
	const n = 10_000
	r := rand.New(rand.NewPCG(1, 1))
	values := make([]float64, n)
	weights := make([]int64, n)
	for i := range values {
		values[i] = r.ExpFloat64()
		weights[i] = 1 + r.Int64N(500)
	}
	b.ReportAllocs()
	for b.Loop() {
		SummarizeWeighted(values, weights)
	}
}
