package window

import (
	"time"

	"github.com/llmprober/llmprober/slo/stats"
)

// seconds converts an offset in ns to the seconds package stats works in.
func seconds(ns int64) float64 { return float64(ns) / float64(time.Second) }

// accumulator collects a window's records.
type accumulator struct {
	start, now int64
	origin     time.Time
	rows       []row
	// counts is the number of rows including each metric, by status.
	counts   [numMetrics][numStatuses]int
	requests [numStatuses]int64
	tokens   [numStatuses][]stats.TokenSpan
	spans    []stats.Span
	entries  []weightedEntry
}

// row is one record's values: bit m of in is set when metric m is defined
// and counts in the window. weight is the number of records of its status
// the record stands for (1 unless sampled).
type row struct {
	vals   [numMetrics]value
	in     uint16
	status uint8
	weight float64
}

// weightedEntry is a record of the window with its sampling weight.
type weightedEntry struct {
	e      *entry
	weight float64
}

// contains reports whether instant t lies in the window.
func (a *accumulator) contains(t int64) bool {
	return t != absent && t >= a.start && t <= a.now
}

// newAccumulator returns an accumulator for the window [start, now] whose
// slices have room for the records of parts that ended in it.
func newAccumulator(g *gathered) *accumulator {
	a := &accumulator{start: g.start, now: g.now, origin: g.origin}
	var n [numStatuses]int
	for _, p := range g.parts {
		for i := range p.entries {
			if a.contains(p.entries[i].end) {
				n[p.entries[i].status]++
			}
		}
	}
	total := n[0] + n[1] + n[2]
	a.rows = make([]row, 0, total)
	a.spans = make([]stats.Span, 0, total+len(g.running))
	a.entries = make([]weightedEntry, 0, total)
	for st := range n {
		a.tokens[st] = make([]stats.TokenSpan, 0, n[st])
	}
	return a
}

// addPart collects the records of one bucket that ended in the window.
// Each stands for seen ÷ kept records of its status.
func (a *accumulator) addPart(p *part) {
	var kept [numStatuses]int64
	for i := range p.entries {
		kept[p.entries[i].status]++
	}
	var weight [numStatuses]float64
	for st := range weight {
		if kept[st] > 0 {
			weight[st] = float64(p.seen[st]) / float64(kept[st])
		}
	}
	for i := range p.entries {
		if e := &p.entries[i]; a.contains(e.end) {
			a.add(e, weight[e.status])
		}
	}
}

// add collects e, which stands for weight records of its status.
func (a *accumulator) add(e *entry, weight float64) {
	a.entries = append(a.entries, weightedEntry{e, weight})
	st := e.status
	a.requests[st]++
	rec := e.record(a.origin)
	r := row{status: st, weight: weight}
	var ok [numMetrics]bool
	r.vals, ok = values(&rec)
	for m := range numMetrics {
		if ok[m] && a.contains(e.eventTime(Metric(m))) {
			r.in |= 1 << m
			a.counts[m][st]++
		}
	}
	a.rows = append(a.rows, r)
	output, prompt := e.tokens()
	from, to := e.tokenSpan()
	if from != absent {
		a.tokens[st] = append(a.tokens[st], stats.TokenSpan{
			FirstToken: seconds(from), LastToken: seconds(to), OutputTokens: output, PromptTokens: prompt,
		})
	}
	from, to = e.busySpan()
	a.spans = append(a.spans, stats.Span{Start: seconds(from), End: seconds(to)})
}

// compute computes window w's snapshot at now.
func (s *Store) compute(now time.Time, w time.Duration) *Snapshot {
	snap := &Snapshot{Target: s.target, Window: w, Start: now, End: now, Confidence: s.set.Confidence, Probes: zeroProbes()}
	g, ok := s.gather(now, w)
	snap.running = runningAt(g.running, now)
	snap.InFlight = len(snap.running)
	if !ok {
		for m := range numMetrics {
			snap.summaries[m] = summarizeByStatus(Metric(m), &accumulator{}, &aggregates{}, s.set.Confidence)
		}
		snap.Objectives = attainments(s.objectives(), nil, stats.Window{}, s.set.Confidence)
		return snap
	}
	snap.Measuring, snap.Approximate, snap.origin, snap.codes = true, g.approximate, g.origin, g.codes
	snap.Probes = g.probes
	snap.End, snap.Start = wallBounds(&g)
	snap.startOff, snap.endOff = g.start, g.now
	a := newAccumulator(&g)
	for i := range g.parts {
		a.addPart(&g.parts[i])
	}
	snap.fillRates(a, &g)
	snap.Objectives = attainments(s.objectives(), sloCounts(len(s.set.Objectives), a, &g),
		stats.Window{Start: seconds(g.start), End: seconds(g.now)}, s.set.Confidence)
	for m := range numMetrics {
		snap.summaries[m] = summarizeByStatus(Metric(m), a, &g.ev, s.set.Confidence)
	}
	snap.entries = a.entries
	return snap
}

// wallBounds returns the wall-clock instants of the window's bounds: the
// origin's wall-clock reading plus their offsets, so that a window clipped
// to the measure start starts exactly there and End − Start is exactly the
// length rates divide by. (now's own wall-clock reading would differ by the
// few ns between the wall and monotonic readings of the two instants.)
func wallBounds(g *gathered) (end, start time.Time) {
	origin := g.origin.Round(0)
	return origin.Add(time.Duration(g.now)), origin.Add(time.Duration(g.start))
}

// sloCounts returns the verdict counts of the requests that ended in the
// window: from its records when it is exact, from its buckets' counters
// (which count every record, sampled or not) when it is approximate.
func sloCounts(n int, a *accumulator, g *gathered) []sloCount {
	counts := make([]sloCount, n)
	if g.approximate {
		for _, p := range g.parts {
			for i := range min(n, len(p.slo)) {
				counts[i].evaluated += p.slo[i].evaluated
				counts[i].conforming += p.slo[i].conforming
				counts[i].conformingOutput += p.slo[i].conformingOutput
			}
		}
		return counts
	}
	for _, we := range a.entries {
		countSLO(counts, we.e)
	}
	return counts
}

// runningAt returns the start times in running not after now.
func runningAt(running []time.Time, now time.Time) []time.Time {
	var out []time.Time
	for _, t := range running {
		if !t.After(now) {
			out = append(out, t)
		}
	}
	return out
}

// fillRates sets the counts, token totals, rates and concurrency.
func (snap *Snapshot) fillRates(a *accumulator, g *gathered) {
	win := stats.Window{Start: seconds(g.start), End: seconds(g.now)}
	requests := a.requests
	if g.approximate {
		requests = [numStatuses]int64{}
		for _, p := range g.parts {
			for st := range requests {
				requests[st] += p.seen[st]
			}
		}
	}
	var output, prompt, total [numStatuses]float64
	for st := range numStatuses {
		o, p := stats.TokensInWindow(a.tokens[st], win)
		output[st], prompt[st] = o+g.ev.output[st], p+g.ev.prompt[st]
		total[st] = output[st] + prompt[st]
	}
	rate := func(x float64) *float64 {
		if r, ok := stats.Rate(x, win); ok {
			return &r
		}
		return nil
	}
	snap.Requests = byStatus(requests, func(a, b int64) int64 { return a + b })
	snap.OutputTokens = byStatus(output, func(a, b float64) float64 { return a + b })
	snap.PromptTokens = byStatus(prompt, func(a, b float64) float64 { return a + b })
	snap.RequestRate = stats.MapByStatus(snap.Requests, func(n int64) *float64 { return rate(float64(n)) })
	snap.OutputTokenRate = stats.MapByStatus(snap.OutputTokens, rate)
	snap.TotalTokenRate = stats.MapByStatus(byStatus(total, func(a, b float64) float64 { return a + b }), rate)
	spans := a.spans
	for _, t := range snap.running {
		spans = append(spans, stats.Span{Start: seconds(int64(t.Sub(g.origin))), End: win.End})
	}
	if c, ok := stats.MeanConcurrency(spans, win); ok {
		c += g.ev.busy / win.Length()
		snap.Concurrency = &c
	}
}

// byStatus spreads per-status values into a ByStatus, All being their sum.
func byStatus[T any](v [numStatuses]T, add func(T, T) T) stats.ByStatus[T] {
	return stats.ByStatus[T]{
		Successful: v[stats.StatusSuccessful], Errored: v[stats.StatusErrored], Incomplete: v[stats.StatusIncomplete],
		All: add(add(v[0], v[1]), v[2]),
	}
}
