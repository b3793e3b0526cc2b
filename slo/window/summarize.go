package window

import (
	"cmp"
	"math"
	"slices"

	"github.com/llmprober/llmprober/slo/stats"
)

// summarizeByStatus summarizes metric m of the window for each status and
// for all of them; ev holds the aggregates of the records that left a
// sample.
func summarizeByStatus(m Metric, a *accumulator, ev *aggregates, confidence float64) stats.ByStatus[Summary] {
	var out stats.ByStatus[Summary]
	var allEv moments
	for st := range numStatuses {
		*out.Of(stats.Status(st)) = a.summarize(m, st, ev.m[m][st], confidence)
		allEv.merge(ev.m[m][st])
	}
	out.All = a.summarize(m, -1, allEv, confidence)
	return out
}

// summarize describes metric m's included values of status st (of every
// status when st is negative): exactly when none of them left a sample
// (ev is empty), else by estimating.
func (a *accumulator) summarize(m Metric, st int, ev moments, confidence float64) Summary {
	if ev.n > 0 {
		return estimate(m, a.collect(m, st), ev, confidence)
	}
	n := a.count(m, st)
	xs := make([]float64, 0, n)
	var ws []int64
	if m.Weighted() {
		ws = make([]int64, 0, n)
	}
	a.each(m, st, func(r *row) {
		xs = append(xs, r.vals[m].v)
		if ws != nil {
			ws = append(ws, r.vals[m].w)
		}
	})
	if !m.Weighted() {
		return Summary{Summary: stats.Summarize(xs, confidence)}
	}
	w := stats.SummarizeWeighted(xs, ws)
	out := Summary{Weighted: true, Summary: stats.Summary{
		Count: w.Count, Mean: w.Mean, Variance: w.Variance, StdDev: w.StdDev, Min: w.Min, Max: w.Max, Percentiles: w.Percentiles,
	}}
	if v, ok := w.Percentile(stats.P50); ok {
		out.Median = &v
	}
	return out
}

// count returns the number of rows that include metric m, of status st or
// of any status when st is negative.
func (a *accumulator) count(m Metric, st int) int {
	n := 0
	for s := range numStatuses {
		if st < 0 || s == st {
			n += a.counts[m][s]
		}
	}
	return n
}

// each calls f for every row that includes metric m, of status st or of
// any status when st is negative.
func (a *accumulator) each(m Metric, st int, f func(r *row)) {
	for i := range a.rows {
		if r := &a.rows[i]; r.in&(1<<m) != 0 && (st < 0 || int(r.status) == st) {
			f(r)
		}
	}
}

// collect returns metric m's included values of status st (every status
// when negative) as samples: each value's weight times the number of
// records its record stands for.
func (a *accumulator) collect(m Metric, st int) []sample {
	out := make([]sample, 0, a.count(m, st))
	a.each(m, st, func(r *row) {
		out = append(out, sample{v: r.vals[m].v, tokens: r.vals[m].w, w: float64(r.vals[m].w) * r.weight})
	})
	return out
}

// estimate describes the sampled values together with the evicted ones
// aggregated in ev:
// count, sum, mean, variance (token-weighted for a weighted metric),
// extremes and the mean's interval exactly, median, mode and percentiles
// as estimates, without intervals. A weighted metric has no sum, mode or
// interval.
func estimate(m Metric, samples []sample, ev moments, confidence float64) Summary {
	var mo moments
	for _, s := range samples {
		mo.add(s.v, s.tokens)
	}
	mo.merge(ev)
	out := Summary{Weighted: m.Weighted(), Approximate: true}
	out.Count, out.Percentiles = mo.n, levels()
	lo, hi := mo.lo, mo.hi
	mean := min(max(mo.mean, lo), hi)
	if lo == hi {
		mean = lo
	}
	out.Mean, out.Min, out.Max = &mean, &lo, &hi
	variance := 0.0
	if lo != hi {
		variance = mo.m2 / float64(mo.n)
	}
	sd := math.Sqrt(variance)
	out.Variance, out.StdDev = &variance, &sd
	if !m.Weighted() {
		if validConfidence(confidence) {
			out.Confidence = confidence
		}
		sum := mo.total()
		out.Sum = &sum
		out.MeanCI = meanCI(&mo, mean, out.Confidence)
	}
	estimateOrder(&out, samples, !m.Weighted())
	return out
}

// validConfidence reports whether c is a usable interval level.
func validConfidence(c float64) bool { return c > 0 && c < 1 }

// meanCI returns mean ± t_{(1+c)/2, n−1}·s/√n with s the sample standard
// deviation of mo, or nil when c is 0 or n < 2.
func meanCI(mo *moments, mean, c float64) *stats.Interval {
	if c == 0 || mo.n < 2 {
		return nil
	}
	if mo.lo == mo.hi {
		return &stats.Interval{Lo: mean, Hi: mean}
	}
	n := float64(mo.n)
	half := stats.StudentT((1+c)/2, n-1) * math.Sqrt(mo.m2/(n-1)) / math.Sqrt(n)
	return &stats.Interval{Lo: mean - half, Hi: mean + half}
}

// levels returns the reported percentiles without values.
func levels() []stats.Percentile {
	ls := stats.Levels()
	ps := make([]stats.Percentile, len(ls))
	for i, l := range ls {
		ps[i].Level = l
	}
	return ps
}

// sample is a sampled value with its token weight (1 for unweighted
// metrics), standing for w units of the window.
type sample struct {
	v      float64
	tokens int64
	w      float64
}

// estimateOrder sets the percentiles (the smallest value whose cumulative
// weight reaches q·Σw), the median and, with withMode, the mode (the value
// of greatest weight, ties to the smallest) of out from samples.
func estimateOrder(out *Summary, samples []sample, withMode bool) {
	samples = slices.DeleteFunc(samples, func(s sample) bool { return !(s.w > 0) || math.IsNaN(s.v) })
	if len(samples) == 0 {
		return
	}
	slices.SortFunc(samples, func(a, b sample) int { return cmp.Compare(a.v, b.v) })
	var total float64
	for _, s := range samples {
		total += s.w
	}
	cum, i := 0.0, -1
	for k := range out.Percentiles {
		l := out.Percentiles[k].Level
		for i < len(samples)-1 && (i < 0 || cum*float64(l.Den) < float64(l.Num)*total) {
			i++
			cum += samples[i].w
		}
		v := samples[i].v
		out.Percentiles[k].Value = &v
	}
	if v, ok := out.Percentile(stats.P50); ok {
		out.Median = &v
	}
	if withMode {
		mode := weightedMode(samples)
		out.Mode = &mode
	}
}

// weightedMode returns the value of greatest total weight in sorted
// samples; ties go to the smallest.
func weightedMode(sorted []sample) float64 {
	best, bestW := sorted[0].v, 0.0
	for i := 0; i < len(sorted); {
		j, w := i, 0.0
		for ; j < len(sorted) && sorted[j].v == sorted[i].v; j++ {
			w += sorted[j].w
		}
		if w > bestW {
			best, bestW = sorted[i].v, w
		}
		i = j
	}
	return best
}
