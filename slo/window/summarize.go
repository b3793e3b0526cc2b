package window

import (
	"math"

	"github.com/llmprober/llmprober/slo/stats"
)

// summarizeByStatus summarizes metric m of the window for each status and
// for all of them, from the metric's values in sorted (the index's, by
// status, ascending); ev holds the aggregates of the records that left a
// sample. In an approximate window the aggregates of all statuses are
// merged from theirs.
func (sel *selection) summarizeByStatus(m Metric, sorted *[numStatuses][]elem, ev *aggregates, confidence float64, sc *scratch) stats.ByStatus[Summary] {
	cols := &sc.cols
	var out stats.ByStatus[Summary]
	var all, allEv moments
	for st := range numStatuses {
		col := &cols[st]
		sel.collect(m, uint8(st), sorted[st], col)
		var mo moments
		if col.sampled && len(col.v) > 0 {
			mo = col.sums()
			mo.m2 = col.deviations(mo.mean)
		}
		all.merge(mo)
		allEv.merge(ev.m[m][st])
		if ev.m[m][st].n > 0 {
			*out.Of(stats.Status(st)) = estimated(m, mo, ev.m[m][st], confidence, col, &sc.empty)
		} else {
			*out.Of(stats.Status(st)) = exact(m, col, confidence)
		}
	}
	if st, ok := onlyStatus(m, cols, ev); ok {
		out.All = *out.Of(st) // the same values: the same figures
		return out
	}
	if allEv.n == 0 {
		cols[numStatuses].merge(cols[:numStatuses], &sc.tmp)
		out.All = exact(m, &cols[numStatuses], confidence)
		return out
	}
	// The values of two statuses are merged as they are read; those of
	// three, first two of them.
	pair := [2]*column{&cols[numStatuses], &cols[numStatuses]}
	pair[0].reset(false, true)
	n := 0
	for st := range numStatuses {
		if len(cols[st].v) == 0 {
			continue
		}
		if n == 2 {
			sc.tmp.mergeTwo(pair[0], pair[1])
			pair[0], n = &sc.tmp, 1
		}
		pair[n] = &cols[st]
		n++
	}
	out.All = estimated(m, all, allEv, confidence, pair[0], pair[1])
	return out
}

// onlyStatus returns the status that holds all of metric m's values of the
// window, sampled and aggregated, when the others hold none.
func onlyStatus(m Metric, cols *[numStatuses + 1]column, ev *aggregates) (stats.Status, bool) {
	n, evN := 0, int64(0)
	for st := range numStatuses {
		n += len(cols[st].v)
		evN += ev.m[m][st].n
	}
	for st := range numStatuses {
		if len(cols[st].v) == n && ev.m[m][st].n == evN {
			return stats.Status(st), true
		}
	}
	return 0, false
}

// exact describes the values of col (ascending), none of which left a
// sample.
func exact(m Metric, col *column, confidence float64) Summary {
	if !m.Weighted() {
		return Summary{Summary: stats.SummarizeSorted(col.v, confidence)}
	}
	w := stats.SummarizeWeighted(col.v, col.tok)
	out := Summary{Weighted: true, Summary: stats.Summary{
		Count: w.Count, Mean: w.Mean, Min: w.Min, Max: w.Max, Percentiles: w.Percentiles,
	}}
	if v, ok := w.Percentile(stats.P50); ok {
		out.Median = &v
	}
	return out
}

// estimated describes the sampled values of columns a and b together with
// the evicted ones aggregated in ev, mo being the sampled values'
// aggregates: count, sum, mean, variance, extremes and the mean's interval
// exactly, median, mode and percentiles estimated from the columns taken
// together, without intervals.
func estimated(m Metric, mo, ev moments, confidence float64, a, b *column) Summary {
	out := Summary{Weighted: m.Weighted(), Approximate: true, Summary: stats.Summary{Percentiles: levels()}}
	order(&out, a, b)
	mo.merge(ev)
	estimate(&out, mo, confidence)
	return out
}

// sums returns the aggregates of a sampled column of one status but the
// squared deviations: count, compensated sum and mean, extremes.
func (c *column) sums() moments {
	if len(c.v) == 0 {
		return moments{}
	}
	return moments{n: c.n, sum: c.sum.sum, sumC: -c.sum.c, mean: c.sum.value() / float64(c.n),
		lo: c.v[0], hi: c.v[len(c.v)-1]}
}

// estimate sets the figures of an estimated summary that come from the
// exact aggregates mo of the sampled and evicted values: count, mean,
// extremes and, for unweighted metrics, sum, variance, standard deviation
// and the mean's interval.
func estimate(out *Summary, mo moments, confidence float64) {
	out.Count = mo.n
	lo, hi := mo.lo, mo.hi
	mean := min(max(mo.mean, lo), hi)
	if lo == hi {
		mean = lo
	}
	out.Mean, out.Min, out.Max = &mean, &lo, &hi
	if out.Weighted {
		return
	}
	if validConfidence(confidence) {
		out.Confidence = confidence
	}
	sum, variance := mo.total(), 0.0
	if lo != hi {
		variance = mo.m2 / float64(mo.n)
	}
	sd := math.Sqrt(variance)
	out.Sum, out.Variance, out.StdDev = &sum, &variance, &sd
	out.MeanCI = meanCI(&mo, mean, out.Confidence)
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

// The sampled columns' values are ascending, with positive weights and
// without NaN (they come from durations and counts).

// deviations returns Σ tok·(v − mean)² over a sampled column.
func (c *column) deviations(mean float64) float64 {
	var m2 float64
	if c.weighted {
		for i, v := range c.v {
			d := v - mean
			m2 += float64(c.tok[i]) * d * d
		}
		return m2
	}
	for _, v := range c.v {
		d := v - mean
		m2 += d * d
	}
	return m2
}

// order sets out's percentiles, median and, unless weighted, mode from
// the sampled values of columns a and b (each ascending) taken together:
// each percentile is the smallest value whose cumulative weight reaches
// q·Σw (compared as cum·den ≥ num·Σw), the mode the value of greatest
// weight, ties to the smallest.
func order(out *Summary, a, b *column) {
	av, aw, bv, bw := a.v, a.sw, b.v, b.sw
	if len(av)+len(bv) == 0 {
		return
	}
	ps, total := out.Percentiles, a.total+b.total
	k := 0
	den, rhs := levelBounds(ps, k, total)
	cum := 0.0
	run, runW, mode, modeW := math.NaN(), 0.0, 0.0, 0.0
	for i, j := 0, 0; i < len(av) || j < len(bv); {
		var v, w float64
		if j == len(bv) || (i < len(av) && av[i] <= bv[j]) {
			v, w = av[i], aw[i]
			i++
		} else {
			v, w = bv[j], bw[j]
			j++
		}
		if v != run {
			if runW > modeW {
				mode, modeW = run, runW
			}
			run, runW = v, 0
		}
		runW += w
		cum += w
		for cum*den >= rhs {
			ps[k].Value = ptr(v)
			k++
			den, rhs = levelBounds(ps, k, total)
		}
	}
	for ; k < len(ps); k++ { // levels the rounded sum never reached
		ps[k].Value = ptr(run)
	}
	if runW > modeW {
		mode = run
	}
	if v, ok := out.Percentile(stats.P50); ok {
		out.Median = &v
	}
	if !out.Weighted {
		out.Mode = &mode
	}
}

// levelBounds returns the denominator of level k of ps and its numerator
// × total; past the last level, bounds no weight reaches.
func levelBounds(ps []stats.Percentile, k int, total float64) (den, rhs float64) {
	if k >= len(ps) {
		return 1, math.Inf(1)
	}
	return float64(ps[k].Level.Den), float64(ps[k].Level.Num) * total
}

func ptr(v float64) *float64 { return &v }
