package window

import (
	"math"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// Two streamed requests, read at t0+30s through the 1m window, whose
// effective start is max(30 − 60, 0) = 0, so its length is 30 s:
//
//	A: targeted 10 s, start 10.5, first token 10.7, last 11.7, end 11.8,
//	   100 prompt and 11 output tokens.
//	B: targeted 20 s, start 20, first token 20.3, last 20.8, end 21,
//	   50 prompt and 6 output tokens.
var twoRequests = []req{
	{seq: 0, targeted: 10000, start: 10500, first: 10700, firstOut: 10700, last: 11700, end: 11800, prompt: 100, output: 11},
	{seq: 1, targeted: 20000, start: 20000, first: 20300, firstOut: 20300, last: 20800, end: 21000, prompt: 50, output: 6},
}

func TestTwoRequestsHandComputed(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	finish(s, twoRequests...)
	clk.Set(at(30000))
	snap := s.Current(time.Minute)
	if !snap.Measuring || snap.Approximate || !snap.Start.Equal(t0) || !snap.End.Equal(at(30000)) {
		t.Fatalf("bounds [%v, %v], measuring %v, approximate %v; want [t0, t0+30s], true, false",
			snap.Start, snap.End, snap.Measuring, snap.Approximate)
	}
	if snap.Requests.Successful != 2 || snap.Requests.All != 2 || snap.Requests.Errored != 0 || snap.InFlight != 0 {
		t.Errorf("requests %+v, in flight %d; want 2 successful, none in flight", snap.Requests, snap.InFlight)
	}
	check(t, "request rate", val(snap.RequestRate.Successful), 2.0/30)
	// 11 + 6 = 17 output tokens, all inside; plus 150 prompt tokens.
	check(t, "output token rate", val(snap.OutputTokenRate.All), 17.0/30)
	check(t, "total token rate", val(snap.TotalTokenRate.All), 167.0/30)
	// Busy 1.3 s + 1.0 s over 30 s.
	check(t, "concurrency", val(snap.Concurrency), 2.3/30)

	// Latency 1.3 and 1.0: mean 1.15, median rank ⌈0.5·2⌉ = 1 → 1.0, p90
	// rank ⌈1.8⌉ = 2 → 1.3, population variance 0.15² = 0.0225, mean
	// interval 1.15 ± t(0.975, 1)·s/√2 with s = √0.045: 12.7062047·0.15.
	lat := snap.Summary(RequestLatency).Successful
	check(t, "latency mean", val(lat.Mean), 1.15)
	check(t, "latency median", val(lat.Median), 1.0)
	check(t, "latency p90", pct(lat, stats.P90), 1.3)
	check(t, "latency variance", val(lat.Variance), 0.0225)
	half := 12.706204736174698 * 0.15
	if lat.MeanCI == nil || !near(lat.MeanCI.Lo, 1.15-half) || !near(lat.MeanCI.Hi, 1.15+half) {
		t.Errorf("latency mean CI %+v, want 1.15 ± %v", lat.MeanCI, half)
	}
	if lat.Percentiles[5].CI != nil {
		t.Errorf("p50 CI of 2 values = %+v, want absent (needs 6)", lat.Percentiles[5].CI)
	}
	// TTFT 0.2 and 0.3; dispatch delay 0.5 and 0; scheduled latency 1.8, 1.0.
	check(t, "TTFT mean", val(snap.Summary(TTFT).Successful.Mean), 0.25)
	check(t, "TTFOT max", val(snap.Summary(TTFOT).Successful.Max), 0.3)
	check(t, "dispatch mean", val(snap.Summary(DispatchDelay).Successful.Mean), 0.25)
	check(t, "scheduled latency mean", val(snap.Summary(ScheduledLatency).Successful.Mean), 1.4)
	// ITL (11.7 − 10.7)/10 = 0.1 weight 10 and (20.8 − 20.3)/5 = 0.1
	// weight 5: count 15, mean 0.1.
	itl := snap.Summary(ITL).Successful
	if !itl.Weighted || itl.Count != 15 || itl.MeanCI != nil {
		t.Errorf("ITL weighted %v count %d CI %v; want weighted, 15, no interval", itl.Weighted, itl.Count, itl.MeanCI)
	}
	check(t, "ITL mean", val(itl.Mean), 0.1)
	check(t, "ITL variance", val(itl.Variance), 0)
	check(t, "ITL standard deviation", val(itl.StdDev), 0)
	// TPOT (11.7 − 10.5)/11 weight 11 and (20.8 − 20)/6 weight 6: count
	// 17; the per-request values are whole nanoseconds (1.2 s/11 =
	// 109090909 ns, 0.8 s/6 = 133333333 ns), so the mean is
	// (0.109090909·11 + 0.133333333·6)/17; p50 at cumulative weight 8.5 →
	// 0.109090909, p90 at 15.3 → 0.133333333.
	tpot := snap.Summary(TPOT).Successful
	check(t, "TPOT count", float64(tpot.Count), 17)
	check(t, "TPOT mean", val(tpot.Mean), (0.109090909*11+0.133333333*6)/17)
	check(t, "TPOT p50", pct(tpot, stats.P50), 0.109090909)
	check(t, "TPOT p90", pct(tpot, stats.P90), 0.133333333)
	// Σw·(v − mean)²/Σw of two values a (weight 11) and b (weight 6) is
	// 11·6·(b − a)²/17².
	d := 0.133333333 - 0.109090909
	check(t, "TPOT variance", val(tpot.Variance), 66*d*d/289)
	check(t, "TPOT standard deviation", val(tpot.StdDev), math.Sqrt(66*d*d/289))
	// Token counts: prompt 100 and 50, output 11 and 6, iterations = output.
	check(t, "prompt tokens sum", val(snap.Summary(PromptTokens).Successful.Sum), 150)
	check(t, "output tokens mode", val(snap.Summary(OutputTokens).Successful.Mode), 6)
	check(t, "iterations max", val(snap.Summary(StreamingIterations).All.Max), 11)
	if e := snap.Summary(RequestLatency).Errored; e.Count != 0 || e.Mean != nil {
		t.Errorf("errored latency %+v, want empty", e)
	}
}

func TestFewRequests(t *testing.T) {
	tests := []struct {
		name      string
		reqs      []req
		count     int64
		mean, p99 float64 // request latency
		meanCI    bool
	}{
		// No request: count 0, every figure absent.
		{"none", nil, 0, math.NaN(), math.NaN(), false},
		// One request of 1.3 s: mean = p99 = 1.3, no interval (n < 2).
		{"one", twoRequests[:1], 1, 1.3, 1.3, false},
		// Two: mean 1.15, p99 rank ⌈1.98⌉ = 2 → 1.3, interval exists.
		{"two", twoRequests, 2, 1.15, 1.3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newTestStore(t, Settings{})
			finish(s, tt.reqs...)
			clk.Set(at(30000))
			snap := s.Current(time.Minute)
			lat := snap.Summary(RequestLatency).Successful
			if lat.Count != tt.count || snap.Requests.All != tt.count || (lat.MeanCI != nil) != tt.meanCI {
				t.Errorf("count %d, requests %d, mean CI %v; want %d, %d, present %v",
					lat.Count, snap.Requests.All, lat.MeanCI, tt.count, tt.count, tt.meanCI)
			}
			check(t, "mean", val(lat.Mean), tt.mean)
			check(t, "p99", pct(lat, stats.P99), tt.p99)
			// The window is 30 s long even without requests: rates are 0,
			// not absent.
			check(t, "request rate", val(snap.RequestRate.All), float64(tt.count)/30)
			if len(lat.Percentiles) != len(stats.Levels()) {
				t.Errorf("%d percentiles, want every level", len(lat.Percentiles))
			}
		})
	}
}

func TestNotMeasuring(t *testing.T) {
	clk := newFakeAt(t0)
	s, err := NewStore(target, Settings{Clock: clk, Warmup: 10 * time.Second, CacheTTL: -1})
	if err != nil {
		t.Fatal(err)
	}
	// Before the target is ready: no measure start.
	if _, ok := s.MeasureStart(); ok {
		t.Error("measure start known before the target was ready")
	}
	snap := s.Current(time.Minute)
	if snap.Measuring || snap.Length() != 0 || snap.RequestRate.All != nil || snap.Concurrency != nil {
		t.Errorf("before ready: measuring %v, length %v, rate %v; want false, 0, absent",
			snap.Measuring, snap.Length(), snap.RequestRate.All)
	}
	s.State(target, probe.StateReady, 0)
	start, _ := s.MeasureStart()
	if !start.Equal(at(10000)) {
		t.Errorf("measure start %v, want t0 + 10 s warmup", start)
	}
	clk.Set(at(9000))
	s.Started(target)
	clk.Set(at(9999))
	if snap := s.Current(time.Minute); snap.Measuring || snap.InFlight != 1 || len(snap.Running()) != 1 {
		t.Errorf("during the warmup: measuring %v, in flight %d; want false, 1 (started at 9 s)", snap.Measuring, snap.InFlight)
	}
	// At the measure start itself the window exists with no length.
	clk.Set(at(10000))
	if snap := s.Current(time.Minute); !snap.Measuring || snap.Length() != 0 || snap.RequestRate.All != nil {
		t.Errorf("at the measure start: measuring %v, length %v, rate %v; want true, 0, absent",
			snap.Measuring, snap.Length(), snap.RequestRate.All)
	}
}

// Start and End are wall-clock instants exactly Length apart, also when
// the clock's readings carry a monotonic reading.
func TestLengthIsEndMinusStart(t *testing.T) {
	s, err := NewStore(target, Settings{Windows: []time.Duration{time.Hour}, CacheTTL: -1})
	if err != nil {
		t.Fatal(err)
	}
	s.State(target, probe.StateReady, 0)
	s.Started(target)
	s.Finished(&probe.Record{Target: target, Outcome: probe.Successful, RequestStart: time.Now()})
	snap := s.Current(time.Hour)
	if !snap.Measuring {
		t.Fatal("not measuring")
	}
	if snap.Start != snap.Start.Round(0) || snap.End != snap.End.Round(0) {
		t.Errorf("bounds %v, %v carry a monotonic reading", snap.Start, snap.End)
	}
	wall := snap.End.UnixNano() - snap.Start.UnixNano()
	if wall != int64(snap.Length()) {
		t.Errorf("End − Start by the wall clock %d ns, Length %d ns; want equal", wall, snap.Length())
	}
}
