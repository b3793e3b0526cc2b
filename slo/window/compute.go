package window

import (
	"cmp"
	"slices"
	"time"

	"github.com/llmprober/llmprober/slo/stats"
)

// seconds converts an offset in ns to the seconds package stats works in.
func seconds(ns int64) float64 { return float64(ns) / float64(time.Second) }

// accumulator collects a window's request-level figures from its records:
// counts, tokens by event time, busy time and (exact windows) verdict
// counts.
type accumulator struct {
	start, now int64
	// horizon is the last end of a request the window counts, ≥ now: now
	// for a rolling window, the instant read for a window that ended
	// before it (see Store.SnapshotSpan).
	horizon  int64
	requests [numStatuses]int64
	tokens   [numStatuses]stats.TokenTally
	busy     stats.BusyTally
	// slo counts the verdicts of the records that ended in the window;
	// nil for an approximate window, which reads its buckets' counters.
	slo []sloCount
}

// contains reports whether instant t lies in the window.
func (a *accumulator) contains(t int64) bool {
	return t != absent && t >= a.start && t <= a.now
}

// counts reports whether e counts among the window's requests: it ended in
// the window or, by the horizon, after it having started by its end (its
// lifetime overlaps the window).
func (a *accumulator) counts(e *entry) bool {
	if e.end <= a.now {
		return a.contains(e.end)
	}
	return e.end <= a.horizon && e.start != absent && e.start <= a.now
}

// includes reports whether e's value of m counts in the window: for a
// request that ended in it, when m's deciding event lies in it too; for
// one that ended after it (by the horizon), when the interval deciding m
// overlaps it: request start to first token (first output token) for TTFT
// (TTFOT), first token to end for ITL and TPOT, the lifetime for the
// request-level quantities, and the request start for dispatch delay and
// scheduled latency.
func (a *accumulator) includes(m Metric, e *entry) bool {
	if e.end <= a.now {
		return a.contains(e.end) && a.contains(e.eventTime(m))
	}
	if !a.counts(e) {
		return false
	}
	switch m {
	case TTFT, TTFOT:
		ev := e.eventTime(m)
		return ev != absent && ev >= a.start
	case ITL, TPOT:
		return e.firstToken != absent && e.firstToken <= a.now
	case DispatchDelay, ScheduledLatency:
		return a.contains(e.start)
	}
	return true
}

// newAccumulator returns an empty accumulator for g's window.
func newAccumulator(g *gathered, objectives int) *accumulator {
	win := stats.Window{Start: seconds(g.start), End: seconds(g.now)}
	a := &accumulator{start: g.start, now: g.now, horizon: g.horizon, busy: stats.NewBusyTally(win)}
	for st := range a.tokens {
		a.tokens[st] = stats.NewTokenTally(win)
	}
	if !g.approximate {
		a.slo = make([]sloCount, objectives)
	}
	return a
}

// addPart collects the records of one bucket that ended in the window,
// from the bucket's sums s when the window contains them whole (the
// bucket lies strictly inside it and so do their spans), and sets the
// part's weights: each kept record stands for seen ÷ kept records of its
// status.
func (a *accumulator) addPart(p *part, s *slotSums, inside bool) {
	for st := range p.weight {
		p.weight[st] = 0
		if s.kept[st] > 0 {
			p.weight[st] = float64(p.seen[st]) / float64(s.kept[st])
		}
	}
	if inside && s.from >= a.start && s.to <= a.now {
		a.addSums(p, s)
		return
	}
	for i := range p.entries {
		if e := &p.entries[i]; a.counts(e) {
			a.add(e)
		}
	}
}

// addSums collects the records of part p, all inside the window, from
// their sums s.
func (a *accumulator) addSums(p *part, s *slotSums) {
	for st := range a.requests {
		a.requests[st] += s.kept[st]
		a.tokens[st].AddInside(float64(s.output[st]), float64(s.prompt[st]))
	}
	a.busy.AddInside(s.busy.value())
	for i := range min(len(a.slo), len(p.slo)) {
		a.slo[i].evaluated += p.slo[i].evaluated
		a.slo[i].conforming += p.slo[i].conforming
		a.slo[i].conformingOutput += p.slo[i].conformingOutput
	}
}

// add collects e.
func (a *accumulator) add(e *entry) {
	st := e.status
	a.requests[st]++
	if a.slo != nil {
		countSLO(a.slo, e)
	}
	output, prompt := e.tokens()
	from, to := e.tokenSpan()
	if from != absent {
		a.tokens[st].Add(stats.TokenSpan{
			FirstToken: seconds(from), LastToken: seconds(to), OutputTokens: output, PromptTokens: prompt,
		})
	}
	from, to = e.busySpan()
	a.busy.Add(stats.Span{Start: seconds(from), End: seconds(to)})
}

// snapshotsAt computes windows ws at now from one reading of the store:
// the index is brought up to date with the buckets that changed, then
// each window is summarized from it outside the store's lock.
func (s *Store) snapshotsAt(now time.Time, ws []time.Duration) []*Snapshot {
	ix := &s.index
	ix.mu.Lock()
	defer ix.mu.Unlock()
	c, gs := s.capture(now, ws)
	defer c.release()
	if c.ok {
		ix.raise(ws, gs)
		ix.update(c.views, c.dirty, c.width, c.differ)
	}
	sc := getScratch()
	defer putScratch(sc)
	out := make([]*Snapshot, len(ws))
	for _, i := range longestFirst(ws) {
		out[i] = s.compute(&c, &gs[i], now, ws[i], sc)
	}
	return out
}

// longestFirst returns the indexes of ws from the longest window to the
// shortest: the first window computed grows the scratch's buffers to the
// most values any reads (a window collecting from a sub-index reads fewer).
func longestFirst(ws []time.Duration) []int {
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ws[b], ws[a]) })
	return order
}

// SnapshotSpan returns the measurement window [from, end] read at now ≥
// end, such as a finite run's window between its warmup and its cooldown:
// from is clipped to the measure start (and to the oldest of the buckets
// kept, which span the longest window before the newest record), and the requests that ended after end, by now,
// count by the overlap rules of the design's "Windows": in the
// request-level figures when they started by end; their TTFT (TTFOT) when
// their first token (first output token) came at or after from, their ITL
// and TPOT when their first token came by end, their dispatch delay and
// scheduled latency when they started in the window; their tokens and
// time in flight by event time, inside [from, end] only. Records reports
// them with the same inclusions. With end equal to now it is the window
// [from, now] of the rolling windows. Window is the longest window; the
// snapshot is not cached. An Approximate window (a bucket of it keeps only
// a sample) leaves out the requests that ended after end.
func (s *Store) SnapshotSpan(from, end, now time.Time) *Snapshot {
	longest := slices.Max(s.set.Windows)
	ix := &s.index
	ix.mu.Lock()
	defer ix.mu.Unlock()
	c, gs := s.captureBy(1, func(r *ring, _ int) gathered { return r.gatherSpan(from, end, now) })
	defer c.release()
	if c.ok {
		ix.update(c.views, c.dirty, c.width, c.differ)
	}
	sc := getScratch()
	defer putScratch(sc)
	return s.compute(&c, &gs[0], end, longest, sc)
}

// compute computes window w's snapshot at now from its reading g.
func (s *Store) compute(c *capture, g *gathered, now time.Time, w time.Duration, sc *scratch) *Snapshot {
	snap := &Snapshot{Target: s.target, Window: w, Start: now, End: now, Confidence: s.set.Confidence, Probes: zeroProbes()}
	snap.running = runningAt(c.running, now)
	snap.InFlight = len(snap.running)
	if !g.ok {
		var none selection
		for m := range numMetrics {
			snap.summaries[m] = none.summarizeByStatus(Metric(m), &ordered{}, &aggregates{}, s.set.Confidence, sc)
		}
		snap.Objectives = attainments(s.objectives(), nil, stats.Window{}, s.set.Confidence)
		return snap
	}
	snap.Measuring, snap.Approximate, snap.origin, snap.codes = true, g.approximate, g.origin, c.codes
	snap.Probes = g.probes
	snap.End, snap.Start = wallBounds(g)
	snap.startOff, snap.endOff, snap.horizonOff = g.start, g.now, g.horizon
	a := newAccumulator(g, len(s.set.Objectives))
	for i := range g.parts {
		p := &g.parts[i]
		a.addPart(p, &s.index.sums[p.slot], p.n > g.first && p.n < g.last)
	}
	snap.fillRates(a, g)
	snap.Objectives = attainments(s.objectives(), sloCounts(len(s.set.Objectives), a, g),
		stats.Window{Start: seconds(g.start), End: seconds(g.now)}, s.set.Confidence)
	sel, sorted := newSelection(c, g, sc), s.index.sortedFor(w, g.first)
	for m := range numMetrics {
		of, alike := repeats(Metric(m), c.differ)
		snap.summaries[m] = sel.summarizeRepeating(Metric(m), &snap.summaries[of], alike, sorted, &g.ev, s.set.Confidence, sc)
	}
	snap.parts = g.parts
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
	if !g.approximate {
		return a.slo
	}
	counts := make([]sloCount, n)
	for _, p := range g.parts {
		for i := range min(n, len(p.slo)) {
			counts[i].evaluated += p.slo[i].evaluated
			counts[i].conforming += p.slo[i].conforming
			counts[i].conformingOutput += p.slo[i].conformingOutput
		}
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
		o, p := a.tokens[st].Totals()
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
	for _, t := range snap.running {
		a.busy.Add(stats.Span{Start: seconds(int64(t.Sub(g.origin))), End: win.End})
	}
	if c, ok := a.busy.Mean(); ok {
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
