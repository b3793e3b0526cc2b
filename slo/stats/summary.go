package stats

import (
	"math"
	"slices"
)

// Interval is a closed two-sided confidence interval [Lo, Hi] in the units
// of the summarized values.
type Interval struct {
	Lo, Hi float64
}

// Percentile is one level of a summary.
type Percentile struct {
	// Level is the exact percentile level.
	Level Level
	// Value is the value at rank ⌈q·n⌉ of the sorted sample (no
	// interpolation); for a weighted summary, the smallest value whose
	// cumulative weight reaches q·Σw. Nil when there are no values.
	Value *float64
	// CI is the distribution-free order-statistic interval
	// [x₍ₗ₎, x₍ᵤ₎] with ranks from PercentileRanks. Nil when intervals are
	// disabled, for weighted summaries, or when the sample is too small for
	// either bound (for example fewer than 72 values for p95 at 0.95).
	CI *Interval
}

// Summary describes a sample of n values. Figures are in the units of the
// values (the variance in their square). Every pointer is nil when the
// figure is absent: all of them when n = 0. A figure reads ±Inf only when
// its true value lies beyond float64's range (about 1.8e308): the moments are
// computed in scaled units, so large inputs never overflow on the way.
type Summary struct {
	// Count is n, the number of (non-NaN) values.
	Count int64
	// Sum is Σx.
	Sum *float64
	// Mean is Σx/n, within [Min, Max].
	Mean *float64
	// Median is the p50 value, ⌈n/2⌉-th smallest.
	Median *float64
	// Mode is the most frequent value; ties go to the smallest.
	Mode *float64
	// Variance is the population variance Σ(x − mean)²/n (0 for n = 1).
	Variance *float64
	// StdDev is the population standard deviation √Variance, computed
	// directly (finite even where Variance overflows).
	StdDev *float64
	// Min and Max are the extreme values.
	Min, Max *float64
	// Percentiles holds one entry per level of Levels, in that order, even
	// when n = 0 (then every Value is nil).
	Percentiles []Percentile
	// Confidence is the level of the intervals, in (0, 1), or 0 when
	// intervals are disabled.
	Confidence float64
	// MeanCI is mean ± t_{(1+c)/2, n−1}·s/√n with s the sample standard
	// deviation (÷(n − 1)). Nil when intervals are disabled or n < 2; equal
	// to [mean, mean] when every value is the same.
	MeanCI *Interval
}

// Percentile returns the value at level l and true, or 0 and false when l is
// not a reported level or the sample is empty.
func (s Summary) Percentile(l Level) (float64, bool) {
	return percentileOf(s.Percentiles, l)
}

func percentileOf(ps []Percentile, l Level) (float64, bool) {
	for _, p := range ps {
		if p.Level == l && p.Value != nil {
			return *p.Value, true
		}
	}
	return 0, false
}

// Summarize describes values at the given confidence level. A confidence of
// 0, NaN or anything outside (0, 1) disables the intervals. NaN values are
// skipped; ±Inf values are kept (they sort to the ends and make the moments
// infinite or NaN). values is not modified: the sort works on a copy, in
// O(n log n).
func Summarize(values []float64, confidence float64) Summary {
	return summarizeSorted(sortedWithoutNaN(values), confidence)
}

// SummarizeSorted is Summarize for values already in ascending order
// without NaN, such as those a caller keeps sorted as they arrive: it
// skips Summarize's copy and sort, so it runs in O(n) and allocates only
// the figures. The result is Summarize's for the same values. Input that
// is not sorted, or holds NaN, is summarized by Summarize instead. values
// is not modified.
func SummarizeSorted(values []float64, confidence float64) Summary {
	if len(values) > 0 && (math.IsNaN(values[0]) || !slices.IsSorted(values)) {
		return Summarize(values, confidence)
	}
	return summarizeSorted(values, confidence)
}

// summarizeSorted summarizes sorted values without NaN.
func summarizeSorted(sorted []float64, confidence float64) Summary {
	n := len(sorted)
	s := Summary{Count: int64(n), Percentiles: emptyPercentiles()}
	if validConfidence(confidence) {
		s.Confidence = confidence
	}
	if n == 0 {
		return s
	}
	m, mean := describe(&s, sorted)
	if s.Confidence != 0 {
		p := planFor(int64(n), s.Confidence)
		for i := range s.Percentiles {
			s.Percentiles[i].CI = percentileCI(sorted, p.ranks[i])
		}
		s.MeanCI = meanCI(m, mean, sorted[0] == sorted[n-1], p.t)
	}
	return s
}

// describe fills the point figures of s from a sorted, non-empty sample and
// returns its moments and mean.
func describe(s *Summary, sorted []float64) (moments, float64) {
	n := len(sorted)
	m := newMoments(sorted)
	lo, hi := sorted[0], sorted[n-1]
	mean, variance, sd := m.Mean(), m.Variance(), m.StdDev()
	if lo == hi {
		mean, variance, sd = lo, 0, 0
	}
	mean = min(max(mean, lo), hi)
	s.Sum, s.Mean, s.Variance, s.StdDev = ptr(m.Sum()), ptr(mean), ptr(variance), ptr(sd)
	s.Min, s.Max, s.Mode = ptr(lo), ptr(hi), ptr(mode(sorted))
	s.Median = ptr(sorted[P50.Rank(n)-1])
	for i := range s.Percentiles {
		s.Percentiles[i].Value = ptr(sorted[s.Percentiles[i].Level.Rank(n)-1])
	}
	return m, mean
}

// sortedWithoutNaN returns a sorted copy of values without NaNs.
func sortedWithoutNaN(values []float64) []float64 {
	out := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

func emptyPercentiles() []Percentile {
	levels := Levels()
	ps := make([]Percentile, len(levels))
	for i, l := range levels {
		ps[i].Level = l
	}
	return ps
}

// mode returns the most frequent value of a sorted, non-empty sample; ties
// go to the smallest value (the first run of maximal length).
func mode(sorted []float64) float64 {
	best, bestLen := sorted[0], 0
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		if j-i > bestLen {
			best, bestLen = sorted[i], j-i
		}
		i = j
	}
	return best
}

// percentileCI returns [x₍ₗ₎, x₍ᵤ₎], or nil when either rank does not exist.
func percentileCI(sorted []float64, r Ranks) *Interval {
	if !r.Complete() {
		return nil
	}
	return &Interval{Lo: sorted[r.Lower-1], Hi: sorted[r.Upper-1]}
}

// meanCI returns mean ± t·s/√n, or nil when n < 2. The half-width is formed
// in the scaled units of m so that huge values do not overflow.
func meanCI(m moments, mean float64, constant bool, t float64) *Interval {
	if m.n < 2 {
		return nil
	}
	if constant {
		return &Interval{Lo: mean, Hi: mean}
	}
	half := t * m.sampleStdDevScaled() / math.Sqrt(float64(m.n))
	scaledMean := m.scale(mean)
	return &Interval{Lo: m.unscale(scaledMean - half), Hi: m.unscale(scaledMean + half)}
}

func ptr(v float64) *float64 { return &v }
