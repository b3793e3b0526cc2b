package window

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// randomRecord returns a request ending at end, drawn from rng: any
// outcome, streamed or not, with or without an arrival schedule, tokens or
// visible output, a realtime one now and then, latencies on a 1 ms grid
// (so that values tie) from 0 to 3 s.
func randomRecord(rng *rand.Rand, seq uint64, end time.Time) *probe.Record {
	ms := func(n int) time.Duration { return time.Duration(rng.IntN(n)) * time.Millisecond }
	r := &probe.Record{Target: target, Seq: seq, Stream: rng.IntN(5) > 0, End: end,
		PromptTokens: 1 + rng.IntN(20), PromptTokensFrom: probe.TokensFromUsage}
	r.RequestStart = end.Add(-ms(3000))
	if rng.IntN(4) > 0 {
		r.TargetedStart = r.RequestStart.Add(-ms(20))
	}
	r.Outcome = []probe.Outcome{probe.Successful, probe.Successful, probe.Successful, probe.Errored, probe.Incomplete}[rng.IntN(5)]
	if r.Outcome != probe.Successful {
		r.ErrorType = probe.ErrorHTTP5xx
	}
	if r.Stream && rng.IntN(6) > 0 {
		r.FirstToken = r.RequestStart.Add(ms(int(end.Sub(r.RequestStart)/time.Millisecond) + 1))
		r.LastToken = r.FirstToken.Add(ms(int(end.Sub(r.FirstToken)/time.Millisecond) + 1))
		r.OutputTokens, r.OutputTokensFrom, r.Iterations = 1+rng.IntN(6), probe.TokensCounted, 1+rng.IntN(6)
		if rng.IntN(3) > 0 {
			r.FirstOutputToken = r.FirstToken
		}
		if rng.IntN(8) == 0 { // realtime
			r.Sent = probe.InstantsOf(r.RequestStart, r.RequestStart.Add(ms(50)))
			r.Received = probe.InstantsOf(r.FirstToken, r.LastToken)
		}
	}
	return r
}

// sampled is a sampled value with its token weight and its sampling
// weight, token weight × its record's Weight.
type sampled struct {
	v, sw float64
	w     int64
}

// recomputed returns, from the window's records, the summaries of metric m
// by status as the package documentation defines them: exact summaries of
// the included values. For the summaries the snapshot estimated it checks
// their percentiles, median and mode against the sampled values instead
// (checkEstimate), and returns them with the snapshot's other figures,
// which the records cannot give.
func recomputed(t *testing.T, what string, snap *Snapshot, m Metric) stats.ByStatus[Summary] {
	t.Helper()
	var by [numStatuses + 1][]sampled
	for _, r := range snap.Records() {
		if !r.Included(m) {
			continue
		}
		v, w, _ := r.Value(m)
		p := sampled{v, float64(w) * r.Weight, w}
		st := statusOf(r.Request.Outcome)
		by[st], by[numStatuses] = append(by[st], p), append(by[numStatuses], p)
	}
	got := snap.Summary(m)
	var out stats.ByStatus[Summary]
	for i, ps := range by {
		dst, have := out.Of(stats.Status(i)), got.Of(stats.Status(i))
		if i == numStatuses {
			dst, have = &out.All, &got.All
		}
		if have.Approximate {
			checkEstimate(t, fmt.Sprintf("%s: %s %s", what, m, stats.Status(i)), *have, ps)
			*dst = *have
			continue
		}
		vs, ws := make([]float64, len(ps)), make([]int64, len(ps))
		for j, p := range ps {
			vs[j], ws[j] = p.v, p.w
		}
		*dst = exactSummary(m, vs, ws, snap.Confidence)
	}
	return out
}

// checkEstimate checks an estimated summary's order statistics against the
// sampled values: each percentile q is the smallest value whose cumulative
// sampling weight reaches q·Σw, the median is p50 and the mode (unweighted
// metrics) a value of greatest weight, the smallest of those — all up to
// the rounding of sums whose terms come in another order. Without sampled
// values there is no estimate.
func checkEstimate(t *testing.T, what string, s Summary, ps []sampled) {
	t.Helper()
	const tol = 1e-12
	slices.SortFunc(ps, func(a, b sampled) int { return cmp.Compare(a.v, b.v) })
	var total float64
	for _, p := range ps {
		total += p.sw
	}
	below := func(v float64, orEqual bool) (w float64) {
		for _, p := range ps {
			if p.v < v || (orEqual && p.v == v) {
				w += p.sw
			}
		}
		return w
	}
	if len(ps) == 0 { // every value left the sample: no estimate
		for _, p := range s.Percentiles {
			if p.Value != nil {
				t.Errorf("%s: %s = %v without a sampled value", what, p.Level, *p.Value)
			}
		}
		return
	}
	for _, p := range s.Percentiles {
		v, q := val(p.Value), p.Level.Float()*total
		if !(below(v, false) < q*(1+tol) && below(v, true) >= q*(1-tol)) || p.CI != nil {
			t.Errorf("%s: %s = %v: weight %v below, %v at most, want %v reached there; interval %v",
				what, p.Level, v, below(v, false), below(v, true), q, p.CI)
		}
	}
	if val(s.Median) != pct(s, stats.P50) {
		t.Errorf("%s: median %v, p50 %v", what, val(s.Median), pct(s, stats.P50))
	}
	if s.Weighted {
		return
	}
	weights := map[float64]float64{}
	for _, p := range ps {
		weights[p.v] += p.sw
	}
	weightOf := func(v float64) float64 { return weights[v] }
	mode, best := val(s.Mode), 0.0
	for _, w := range weights {
		best = max(best, w)
	}
	for _, p := range ps {
		if p.v < mode && weightOf(p.v) > weightOf(mode)*(1+tol) || weightOf(mode) < best*(1-tol) {
			t.Errorf("%s: mode %v of weight %v; %v weighs %v of at most %v", what, mode, weightOf(mode), p.v, weightOf(p.v), best)
			return
		}
	}
}

// exactSummary is the window's summary of values vs of token weights ws,
// by package stats.
func exactSummary(m Metric, vs []float64, ws []int64, confidence float64) Summary {
	if !m.Weighted() {
		return Summary{Summary: stats.Summarize(vs, confidence)}
	}
	w := stats.SummarizeWeighted(vs, ws)
	out := Summary{Weighted: true, Summary: stats.Summary{Count: w.Count, Mean: w.Mean, Variance: w.Variance, StdDev: w.StdDev,
		Min: w.Min, Max: w.Max, Percentiles: w.Percentiles}}
	if v, ok := w.Percentile(stats.P50); ok {
		out.Median = &v
	}
	return out
}

// checkRates compares an exact window's request counts, tokens and
// concurrency with those recomputed from its records, its running requests
// and its bounds, by package stats.
func checkRates(t *testing.T, what string, snap *Snapshot) {
	t.Helper()
	if snap.Approximate || !snap.Measuring {
		return
	}
	secs := func(at time.Time) float64 { return at.Sub(t0).Seconds() }
	win := stats.Window{Start: secs(snap.Start), End: secs(snap.End)}
	var requests [numStatuses]int64
	var tokens [numStatuses][]stats.TokenSpan
	var spans []stats.Span
	for _, r := range snap.Records() {
		rec := &r.Request
		st := statusOf(rec.Outcome)
		requests[st]++
		first, last := rec.FirstToken, rec.LastToken
		if first.IsZero() {
			first, last = rec.End, rec.End
		} else if last.IsZero() || last.Before(first) {
			last = first
		}
		var output, prompt int64
		if rec.OutputTokensFrom != probe.TokensUnknown {
			output = int64(rec.OutputTokens)
		}
		if rec.PromptTokensFrom != probe.TokensUnknown {
			prompt = int64(rec.PromptTokens)
		}
		tokens[st] = append(tokens[st], stats.TokenSpan{FirstToken: secs(first), LastToken: secs(last), OutputTokens: output, PromptTokens: prompt})
		spans = append(spans, stats.Span{Start: secs(rec.RequestStart), End: secs(rec.End)})
	}
	for _, at := range snap.Running() {
		spans = append(spans, stats.Span{Start: secs(at), End: win.End})
	}
	for st := range numStatuses {
		output, prompt := stats.TokensInWindow(tokens[st], win)
		s := stats.Status(st)
		if got := *snap.Requests.Of(s); got != requests[st] {
			t.Errorf("%s: %d %s requests, records say %d", what, got, s, requests[st])
		}
		if !near(*snap.OutputTokens.Of(s), output) || !near(*snap.PromptTokens.Of(s), prompt) {
			t.Errorf("%s: %s tokens %v and %v, records say %v and %v", what, s, *snap.OutputTokens.Of(s), *snap.PromptTokens.Of(s), output, prompt)
		}
	}
	if c, ok := stats.MeanConcurrency(spans, win); ok != (snap.Concurrency != nil) || ok && !near(c, *snap.Concurrency) {
		t.Errorf("%s: concurrency %v, records say %v", what, val(snap.Concurrency), c)
	}
}

// checkRecomputed compares every summary of snap with its recomputation.
// The weighted means are compared to 1e-9: their sum's order among equal
// values may differ.
func checkRecomputed(t *testing.T, what string, snap *Snapshot) {
	t.Helper()
	checkRates(t, what, snap)
	for _, m := range Metrics() {
		want, got := recomputed(t, what, snap, m), snap.Summary(m)
		for _, st := range []stats.Status{stats.StatusSuccessful, stats.StatusErrored, stats.StatusIncomplete, -1} {
			w, g := &want.All, &got.All
			if st >= 0 {
				w, g = want.Of(st), got.Of(st)
			}
			if m.Weighted() && w.Mean != nil && g.Mean != nil && near(*w.Mean, *g.Mean) {
				w.Mean = g.Mean
			}
			if !reflect.DeepEqual(*w, *g) {
				t.Fatalf("%s: %s %s:\n got %s\nwant %s", what, m, st, describe(*g), describe(*w))
			}
		}
	}
}

// describe prints a summary's figures.
func describe(s Summary) string {
	out := fmt.Sprintf("approximate %v count %d mean %v median %v mode %v min %v max %v sum %v var %v",
		s.Approximate, s.Count, val(s.Mean), val(s.Median), val(s.Mode), val(s.Min), val(s.Max), val(s.Sum), val(s.Variance))
	for _, p := range s.Percentiles {
		out += fmt.Sprintf(" %s=%v", p.Level, val(p.Value))
		if p.CI != nil {
			out += fmt.Sprintf("%v", *p.CI)
		}
	}
	return out
}

// Snapshots read from the incrementally kept index agree with the
// definitions recomputed from their own records, exact and estimated, as
// records arrive (some into old buckets, some ending after a snapshot's
// instant), snapshots go forwards and backwards in time, buckets overflow
// and the ring recycles them; and with a store that built its index at
// once from the same records.
func TestIndexAgreesWithRecords(t *testing.T) {
	for _, tc := range []struct {
		name string
		cap  int
		// successful is the share of successful requests in percent (the
		// random mix otherwise): past 7/8 the estimates of all outcomes
		// search the successful ones instead of merging.
		successful int
	}{{"exact", DefaultSampleCap, 0}, {"sampled", Buckets, 0}, {"sampled more", 4 * Buckets, 0},
		{"sampled mostly successful", 4 * Buckets, 97}, {"exact mostly successful", DefaultSampleCap, 97}} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				set := Settings{Windows: []time.Duration{20 * time.Second, time.Minute}, SampleCap: tc.cap, Seed: seed}
				s, clk := newTestStore(t, set)
				rng := rand.New(rand.NewPCG(seed, 99))
				var recs []*probe.Record
				now := t0
				for step := range 40 {
					for range rng.IntN(40) {
						end := now.Add(-time.Duration(rng.IntN(2000)) * time.Millisecond)
						if rng.IntN(10) == 0 {
							end = now.Add(-time.Duration(rng.IntN(50)) * time.Second)
						}
						rec := randomRecord(rng, uint64(len(recs)), end)
						if tc.successful > 0 && rng.IntN(100) < tc.successful {
							rec.Outcome, rec.ErrorType = probe.Successful, probe.ErrorNone
						}
						recs = append(recs, rec)
						s.Started(target)
						s.Finished(rec)
					}
					now = now.Add(time.Duration(rng.IntN(4000)) * time.Millisecond)
					clk.Set(now)
					at := now
					if rng.IntN(5) == 0 {
						at = now.Add(-time.Duration(rng.IntN(10000)) * time.Millisecond)
					}
					for _, snap := range s.Snapshots(at) {
						checkRecomputed(t, fmt.Sprintf("step %d, %s at %v", step, snap.Name(), at.Sub(t0)), snap)
					}
				}
				fresh, _ := newTestStore(t, set)
				for _, rec := range recs {
					fresh.Started(target)
					fresh.Finished(rec)
				}
				want, got := fresh.Snapshots(now), s.Snapshots(now)
				for i := range want {
					for _, m := range Metrics() {
						if !sameSummaries(want[i].Summary(m), got[i].Summary(m)) {
							t.Errorf("%s %s: incremental %+v, from scratch %+v", want[i].Name(), m, got[i].Summary(m), want[i].Summary(m))
						}
					}
				}
			})
		}
	}
}

// sameSummaries reports whether a and b are equal, bit for bit but for
// the variance and standard deviation of a weighted metric's estimates,
// equal to 9 digits (near): their squared deviations are summed in the order of
// the sorted values, and values that tie with different token weights may
// come in another order in an index built anew.
func sameSummaries(a, b stats.ByStatus[Summary]) bool {
	for _, st := range []stats.Status{stats.StatusSuccessful, stats.StatusErrored, stats.StatusIncomplete, -1} {
		x, y := &a.All, &b.All
		if st >= 0 {
			x, y = a.Of(st), b.Of(st)
		}
		if x.Weighted && x.Approximate && y.Variance != nil && x.Variance != nil &&
			near(*x.Variance, *y.Variance) && near(*x.StdDev, *y.StdDev) {
			y.Variance, y.StdDev = x.Variance, x.StdDev
		}
	}
	return reflect.DeepEqual(a, b)
}

// sortByValue sorts by value, negative values, zeros and ties included,
// above and below the length where it switches from comparisons to radix.
func TestSortByValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 100, 255, 256, 5000} {
		xs := make([]elem, n)
		for i := range xs {
			xs[i] = elem{v: float64(rng.IntN(2000)-1000) / 7, ref: uint32(i)}
			if i%50 == 0 {
				xs[i].v = 0
			}
		}
		want := slices.Clone(xs)
		slices.SortStableFunc(want, func(a, b elem) int { return cmp.Compare(a.v, b.v) })
		got := sortByValue(xs, make([]elem, n))
		for i := range got {
			if got[i].v != want[i].v {
				t.Fatalf("n=%d: at %d %v, want %v", n, i, got[i].v, want[i].v)
			}
		}
	}
	if orderKey(math.Copysign(0, -1)) >= orderKey(0) || orderKey(-1) >= orderKey(-0.5) || orderKey(0.5) >= orderKey(1) {
		t.Error("orderKey does not keep the order of -1, -0.5, -0, 0, 0.5, 1")
	}
}
