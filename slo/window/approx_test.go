package window

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// With windows 12m and 1m the bucket width is 12 min/720 = 1 s, and a cap
// of 1440 keeps 1440/720 = 2 records per bucket. Ten requests end in
// bucket 5 ([5 s, 6 s)): request i ends at 5 + 0.1·i s after a latency of
// 0.1 + 0.01·i s, its first token 50 ms after its start.
func approxStore(t *testing.T) *Store {
	t.Helper()
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{12 * time.Minute, time.Minute}, SampleCap: 1440, Seed: 7})
	for i := range int64(10) {
		end := 5000 + 100*i
		start := end - (100 + 10*i)
		finish(s, req{seq: uint64(i), targeted: start, start: start, first: start + 50, firstOut: start + 50,
			last: end - 10, end: end, prompt: 10, output: 5})
	}
	// An errored request alone in bucket 7.
	finish(s, req{seq: 10, start: 7000, first: -1, firstOut: -1, last: -1, end: 7500, outcome: probe.Errored})
	clk.Set(at(65500))
	return s
}

func TestApproximateWindow(t *testing.T) {
	s := approxStore(t)
	// The 1m window at 65.5 s starts at 5.5 s, in the overflowed bucket 5:
	// it is computed from 5 s, the bucket's start, and is 60.5 s long.
	snap := s.Current(time.Minute)
	if !snap.Approximate || !snap.Start.Equal(at(5000)) || snap.Length() != 60500*time.Millisecond {
		t.Fatalf("approximate %v start %v length %v; want true, t0 + 5 s, 60.5 s", snap.Approximate, snap.Start, snap.Length())
	}
	// Counts are exact for those bounds: all 10 of bucket 5, and the error.
	if snap.Requests.Successful != 10 || snap.Requests.Errored != 1 {
		t.Errorf("requests %+v, want 10 successful and 1 errored", snap.Requests)
	}
	check(t, "request rate", val(snap.RequestRate.Successful), 10/60.5)
	lat := snap.Summary(RequestLatency).Successful
	if !lat.Approximate || lat.Count != 10 {
		t.Fatalf("latency approximate %v count %d, want true, 10", lat.Approximate, lat.Count)
	}
	// Latencies 0.10 … 0.19: sum 1.45, mean 0.145, population variance
	// 0.01²·Σ(k − 4.5)²/10 = 0.0001·82.5/10, mean interval 0.145 ±
	// t(0.975, 9)·√(0.00825/9)/√10.
	check(t, "sum", val(lat.Sum), 1.45)
	check(t, "mean", val(lat.Mean), 0.145)
	check(t, "min", val(lat.Min), 0.1)
	check(t, "max", val(lat.Max), 0.19)
	check(t, "variance", val(lat.Variance), 0.000825)
	half := 2.2621571627409915 * math.Sqrt(0.00825/9) / math.Sqrt(10)
	if lat.MeanCI == nil || !near(lat.MeanCI.Lo, 0.145-half) || !near(lat.MeanCI.Hi, 0.145+half) {
		t.Errorf("mean CI %+v, want 0.145 ± %v", lat.MeanCI, half)
	}
	for _, p := range lat.Percentiles {
		if p.CI != nil {
			t.Errorf("%s has an interval %+v in an estimate", p.Level, p.CI)
		}
		if v := val(p.Value); !slices.ContainsFunc(latencies(), func(x float64) bool { return near(x, v) }) {
			t.Errorf("%s = %v, not one of the latencies", p.Level, v)
		}
	}
	// Token-weighted ITL (last − first)/4 = 10 + 2.5·i ms, weight 4 each,
	// and TPOT (last − start)/5 = 18 + 2·i ms, weight 5 each: their
	// variances are exact past the cap, 2.5² and 2² ms² × Σ(i − 4.5)²/10
	// = 8.25, with no sum.
	itl, tpot := snap.Summary(ITL).Successful, snap.Summary(TPOT).Successful
	if !itl.Approximate || !itl.Weighted || itl.Count != 40 || itl.Sum != nil || tpot.Count != 50 {
		t.Errorf("ITL approximate %v weighted %v count %d sum %v, TPOT count %d; want true, true, 40, absent, 50",
			itl.Approximate, itl.Weighted, itl.Count, itl.Sum, tpot.Count)
	}
	check(t, "ITL mean", val(itl.Mean), 0.02125)
	check(t, "ITL variance", val(itl.Variance), 0.0025*0.0025*8.25)
	check(t, "ITL standard deviation", val(itl.StdDev), 0.0025*math.Sqrt(8.25))
	check(t, "TPOT variance", val(tpot.Variance), 0.002*0.002*8.25)
	check(t, "TPOT standard deviation", val(tpot.StdDev), 0.002*math.Sqrt(8.25))
	// Event-level counts with the aligned start: request 0's first token
	// (4.95 s) precedes 5 s, so 9 TTFT samples; requests start at
	// 4.9 + 0.09·i s, at or after 5 s for i ≥ 2: 8 dispatch delays.
	if n := snap.Summary(TTFT).Successful.Count; n != 9 {
		t.Errorf("TTFT count %d, want 9", n)
	}
	if n := snap.Summary(DispatchDelay).Successful.Count; n != 8 {
		t.Errorf("dispatch delay count %d, want 8", n)
	}
	// Request 0 streamed its tokens over [4.95, 4.99] s, before 5 s; the
	// other 9 after it: 9·5 output and 9·10 prompt tokens.
	check(t, "output tokens", snap.OutputTokens.Successful, 45)
	check(t, "prompt tokens", snap.PromptTokens.Successful, 90)
	// Busy time after 5 s: Σ latencies 1.45 s less request 0's 0.1 s
	// ([4.9, 5.0]) and request 1's first 0.01 s ([4.99, 5.1]), plus the
	// error's 0.5 s: 1.84 s.
	check(t, "concurrency", val(snap.Concurrency), 1.84/60.5)
	// The errored request left no sample: its summary is exact.
	if e := snap.Summary(RequestLatency).Errored; e.Approximate || e.Count != 1 || val(e.Mean) != 0.5 {
		t.Errorf("errored latency approximate %v count %d mean %v, want exact 1 of 0.5", e.Approximate, e.Count, val(e.Mean))
	}
	// The records are the sample, 2 of bucket 5 standing for 10/2 = 5 each,
	// and the error standing for itself.
	recs := snap.Records()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	var weight float64
	for _, r := range recs {
		weight += r.Weight
	}
	if weight != 11 {
		t.Errorf("records weigh %v in all, want 5 + 5 + 1 = 11", weight)
	}
}

func latencies() []float64 {
	var out []float64
	for i := range 10 {
		out = append(out, (100+10*float64(i))/1000)
	}
	return out
}

// A window that does not reach the overflowed bucket stays exact.
func TestWindowPastOverflowIsExact(t *testing.T) {
	s := approxStore(t)
	snap := s.Snapshot(at(67000), time.Minute) // [7 s, 67 s]
	if snap.Approximate || !snap.Start.Equal(at(7000)) || snap.Requests.All != 1 {
		t.Errorf("approximate %v start %v requests %d; want exact, t0 + 7 s, 1", snap.Approximate, snap.Start, snap.Requests.All)
	}
	if e := snap.Summary(RequestLatency).Errored; e.Approximate || e.Count != 1 {
		t.Errorf("errored latency %+v, want exact", e)
	}
}

// The same requests with the same seed give the same sample.
func TestSampleIsDeterministic(t *testing.T) {
	seqs := func() []uint64 {
		var out []uint64
		for _, r := range approxStore(t).Current(time.Minute).Records() {
			out = append(out, r.Request.Seq)
		}
		return out
	}
	if a, b := seqs(), seqs(); !slices.Equal(a, b) {
		t.Errorf("samples %v and %v differ", a, b)
	}
}

// Each of 10 records of a bucket keeping 2 is sampled with probability
// 2/10. Over 4000 seeds each is kept 800 times in expectation, with
// standard deviation √(4000·0.2·0.8) ≈ 25.3; allow 5 of them.
func TestReservoirIsUniform(t *testing.T) {
	var kept [10]int
	for seed := range uint64(4000) {
		r := newRing(t0, 12*time.Minute, 1440, 0, seed)
		for i := range 10 {
			r.add(entry{seq: uint64(i), end: int64(5*time.Second) + int64(i), start: absent,
				targeted: absent, firstToken: absent, firstOutput: absent, last: absent})
		}
		for _, e := range r.get(5).kept {
			kept[e.seq]++
		}
	}
	for i, n := range kept {
		if math.Abs(float64(n)-800) > 5*25.3 {
			t.Errorf("record %d kept %d times of 4000, want about 800", i, n)
		}
	}
}

// With every bucket of the hour sampled, the estimated percentiles lie
// within the DKW bound of their level. 36 000 requests, 10 per second from
// 2 s on, with latencies uniform on [0.1, 1.1) s; the cap 7200 keeps 10 of the 50
// requests of each 5 s bucket, so m = 720·10 = 7200 samples and at
// δ = 0.001 the rank error is at most ε = √(ln(2000)/14400) ≈ 0.0230.
func TestEstimatedPercentilesWithinBound(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Hour}, SampleCap: 7200, Seed: 1})
	rng := rand.New(rand.NewPCG(3, 4))
	var all []float64
	for i := range int64(36000) {
		end := 2000 + 100*i
		lat := 0.1 + rng.Float64()
		start := end - int64(lat*1000)
		all = append(all, float64(end-start)/1000)
		finish(s, req{seq: uint64(i), start: start, first: start + 10, firstOut: start + 10, last: end, end: end, output: 2})
	}
	clk.Set(at(3602000))
	snap := s.Current(time.Hour)
	lat := snap.Summary(RequestLatency).Successful
	if !lat.Approximate || lat.Count != 36000 {
		t.Fatalf("approximate %v count %d, want true, 36000", lat.Approximate, lat.Count)
	}
	exact := stats.Summarize(all, 0)
	check(t, "mean", val(lat.Mean), val(exact.Mean))
	check(t, "max", val(lat.Max), val(exact.Max))
	slices.Sort(all)
	eps := math.Sqrt(math.Log(2000) / (2 * 7200))
	for _, l := range []stats.Level{stats.P10, stats.P50, stats.P90, stats.P99} {
		v := pct(lat, l)
		// The true quantile range of v: the fraction of values below it
		// and of those at most it.
		lo := float64(sortSearch(all, v, false)) / float64(len(all))
		hi := float64(sortSearch(all, v, true)) / float64(len(all))
		if hi < l.Float()-eps || lo > l.Float()+eps {
			t.Errorf("%s = %v has true rank [%v, %v], outside %v ± %v", l, v, lo, hi, l.Float(), eps)
		}
	}
}

// sortSearch returns the number of sorted values below v, or at most v
// with orEqual.
func sortSearch(sorted []float64, v float64, orEqual bool) int {
	i, found := slices.BinarySearch(sorted, v)
	if !orEqual || !found {
		return i
	}
	for i < len(sorted) && sorted[i] == v {
		i++
	}
	return i
}
