package window

import (
	"math"

	"github.com/llmprober/llmprober/slo/stats"
)

// summarizeByStatus summarizes metric m of the window for each status and
// for all of them, from the metric's values in sorted (the index's, or a
// sub-index's); ev holds the aggregates of the records that left a
// sample. It leaves each status's values in sc.cols and their tallies in
// sc.tallies.
func (sel *selection) summarizeByStatus(m Metric, sorted *ordered, ev *aggregates, confidence float64, sc *scratch) stats.ByStatus[Summary] {
	return sel.summarizeRepeating(m, nil, 0, sorted, ev, confidence, sc)
}

// summarizeRepeating is summarizeByStatus for a metric that repeats, in the
// statuses alike, the metric whose summaries prev are and whose values
// and tallies sc holds (the one summarized just before, see aliases):
// those statuses' summaries are prev's, and their values and tallies
// serve for all statuses together.
func (sel *selection) summarizeRepeating(m Metric, prev *stats.ByStatus[Summary], alike uint8, sorted *ordered, ev *aggregates,
	confidence float64, sc *scratch) stats.ByStatus[Summary] {
	if alike == allStatuses {
		return *prev
	}
	var out stats.ByStatus[Summary]
	for st := range numStatuses {
		if alike&(1<<st) != 0 {
			*out.Of(stats.Status(st)) = *prev.Of(stats.Status(st))
			continue
		}
		*out.Of(stats.Status(st)), sc.tallies[st] = sel.summarizeStatus(m, st, sorted, ev.m[m][st], confidence, sc)
	}
	if st, ok := onlyStatus(m, &sc.cols, ev); ok {
		out.All = *out.Of(st) // the same values: the same figures
		return out
	}
	out.All = summarizeAll(m, &sc.tallies, ev, confidence, sc)
	return out
}

// summarizeStatus collects metric m's values of status st into sc's
// column of that status and summarizes them, exactly when none left a
// sample (ev is empty); it returns the column's tally too (empty unless
// the window is approximate).
func (sel *selection) summarizeStatus(m Metric, st int, sorted *ordered, ev moments, confidence float64, sc *scratch) (Summary, tally) {
	col := &sc.cols[st]
	sel.collect(m, uint8(st), sorted[m][st], col)
	var t tally
	if col.sampled {
		t = col.tally(true)
	}
	if ev.n > 0 {
		return estimated(m, col, t, ev, confidence), t
	}
	return exact(m, col, confidence), t
}

// summarizeAll summarizes metric m's values of every status, collected in
// sc's columns and tallied in tallies, with the aggregates of all statuses
// merged from theirs in ev.
func summarizeAll(m Metric, tallies *[numStatuses]tally, ev *aggregates, confidence float64, sc *scratch) Summary {
	cols := &sc.cols
	var all, allEv moments
	for st := range numStatuses {
		all.merge(tallies[st].mo)
		allEv.merge(ev.m[m][st])
	}
	if allEv.n > 0 {
		if big, ok := mostly(cols); ok {
			return estimatedMixed(m, cols, big, tallies, all, allEv, confidence, sc)
		}
	}
	allCol := &cols[numStatuses]
	allCol.merge(cols[:numStatuses], &sc.tmp)
	if allEv.n == 0 {
		return exact(m, allCol, confidence)
	}
	t := allCol.tally(false)
	t.mo = all
	return estimated(m, allCol, t, allEv, confidence)
}

// mostly returns the status whose column holds at least seven eighths of
// the values of cols, when they hold some: a window may hold evicted
// values of a metric and no sampled one (every record of its buckets'
// samples without it), and then has no order statistics to search.
func mostly(cols *[numStatuses + 1]column) (int, bool) {
	n, big := 0, 0
	for st := range numStatuses {
		n += len(cols[st].v)
		if len(cols[st].v) > len(cols[big].v) {
			big = st
		}
	}
	return big, n > 0 && len(cols[big].v)*8 >= n*7
}

// estimatedMixed describes the sampled values of every status together
// with the evicted ones, most of them in status big's column: the other
// statuses' values are merged into the column of all, and the order
// statistics searched for in both (mixed); mo are the sampled values'
// aggregates and ev the evicted ones'.
func estimatedMixed(m Metric, cols *[numStatuses + 1]column, big int, tallies *[numStatuses]tally,
	mo, ev moments, confidence float64, sc *scratch) Summary {
	rest := *cols
	rest[big] = column{}
	small := &cols[numStatuses]
	small.merge(rest[:numStatuses], &sc.tmp)
	total, hi := 0.0, cols[big].v[len(cols[big].v)-1]
	for st := range numStatuses {
		total += tallies[st].total
	}
	if len(small.v) > 0 {
		hi = max(hi, small.v[len(small.v)-1])
	}
	out := Summary{Weighted: m.Weighted(), Approximate: true, Summary: stats.Summary{Percentiles: levels()}}
	newMixed(&cols[big], small, sc).estimate(&out, total, tallies[big].mode, tallies[big].modeW, hi)
	mo.merge(ev)
	estimate(&out, mo, confidence)
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
		Count: w.Count, Mean: w.Mean, Variance: w.Variance, StdDev: w.StdDev, Min: w.Min, Max: w.Max, Percentiles: w.Percentiles,
	}}
	if v, ok := w.Percentile(stats.P50); ok {
		out.Median = &v
	}
	return out
}

// estimated describes the sampled values of col, tallied in t, together
// with the evicted ones aggregated in ev: count, sum, mean, variance,
// extremes and the mean's interval exactly, median, mode and percentiles
// estimated from col, without intervals.
func estimated(m Metric, col *column, t tally, ev moments, confidence float64) Summary {
	out := Summary{Weighted: m.Weighted(), Approximate: true, Summary: stats.Summary{Percentiles: levels()}}
	if len(col.v) > 0 {
		col.percentiles(out.Percentiles, t.total)
		if v, ok := out.Percentile(stats.P50); ok {
			out.Median = &v
		}
		if !m.Weighted() {
			out.Mode = ptr(t.mode)
		}
	}
	mo := t.mo
	mo.merge(ev)
	estimate(&out, mo, confidence)
	return out
}

// estimate sets the figures of an estimated summary that come from the
// exact aggregates mo of the sampled and evicted values: count, mean,
// extremes, variance and standard deviation (token-weighted for a weighted
// metric) and, for unweighted metrics, sum and the mean's interval.
func estimate(out *Summary, mo moments, confidence float64) {
	out.Count = mo.n
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
	if out.Weighted {
		return
	}
	if validConfidence(confidence) {
		out.Confidence = confidence
	}
	sum := mo.total()
	out.Sum = &sum
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

func ptr(v float64) *float64 { return &v }
