package exporter

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// defaultGauges are the window gauges of the configuration's default:
// percentiles at p99 and the SLO family.
var defaultGauges = WindowGauges{Percentiles: true, SLO: true, Levels: []stats.Level{stats.P99}}

// k8sObjective is the objective set of the Kubernetes example: TTFT ≤ 500
// ms, ITL ≤ 50 ms, both already bucket boundaries.
var k8sObjective = slo.Objective{Name: "default", Attainment: 0.99, Period: 30 * 24 * time.Hour,
	Thresholds: []slo.Threshold{{Quantity: slo.TTFT, Max: 500 * time.Millisecond}, {Quantity: slo.ITL, Max: 50 * time.Millisecond}}}

// TestSeriesBudgetDefaultHTTPTarget counts by hand one streamed chat target
// at a constant rate with the default windows (3), the default window
// gauges and one objective set.
func TestSeriesBudgetDefaultHTTPTarget(t *testing.T) {
	target := Target{Name: "vllm", API: "chat", Stream: true, Objectives: []slo.Objective{k8sObjective}}
	b, err := SeriesBudget([]Target{target}, 3, Options{Getenv: noEnv, WindowGauges: &defaultGauges,
		ExtraBoundaries: SLOBoundaries(target.Objectives)})
	if err != nil {
		t.Fatal(err)
	}
	// Histograms (boundaries + 3 series each): duration 14 GenAI boundaries
	// → 17 × (successful + 7 error types + an errored request without one);
	// tokens 17 × 2; time to first chunk and per output chunk 17 each;
	// TTFT, TTFOT, scheduled latency 20 + 3; ITL, TPOT 15 + 3; dispatch
	// delay 16 + 3; HTTP phases 4 × (11 + 3). 153 + 34 + 34 + 69 + 36 + 19 + 56.
	histograms := 153 + 34 + 34 + 3*23 + 2*18 + 19 + 4*14
	// Counters: requests 1 + 7 + 2 incomplete (canceled, prober) + 1 other,
	// scheduled, dropped 2 reasons, SLO evaluated, conforming, non-conforming 7 error types +
	// errored + insufficient_output + ttft + itl.
	counters := 11 + 1 + 2 + 1 + 1 + 11
	// Gauges: in flight, state 3, startup wait, info, objective, period.
	gauges := 1 + 3 + 1 + 1 + 1 + 1
	// Window gauges per window: length, approximate, p99 of 7 durations
	// (latency, TTFT, TTFOT, ITL, TPOT, dispatch delay, scheduled latency),
	// evaluated, attainment, goodput, token goodput.
	windows := 3 * (2 + 7 + 4)
	want := histograms + counters + gauges + windows
	if want != 475 || b.Targets[0] != want || b.Shared != 2 || b.Total != want+2 {
		t.Errorf("budget = target %d, shared %d, total %d; want %d (hand count 475), 2 (build info, heartbeat), %d",
			b.Targets[0], b.Shared, b.Total, want, want+2)
	}
	// The largest instrument is the p99 gauge: 7 durations × 3 windows.
	if l := b.Largest(); l.Name != "llmprober_window_percentile_seconds" || l.Sets != 21 || b.CardinalityLimit() != 2000 {
		t.Errorf("largest %+v, limit %d; want the percentile gauge with 21 sets, limit 2000", l, b.CardinalityLimit())
	}
}

// TestSeriesBudgetScales checks the figures the README states: each
// window, each objective set, a realtime target, and 200 targets with two
// objective sets each inside the limit.
func TestSeriesBudgetScales(t *testing.T) {
	second := slo.Objective{Name: "strict", Attainment: 0.999, Period: 30 * 24 * time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: 10 * time.Second}}}
	http := Target{Name: "h", API: "chat", Stream: true, Objectives: []slo.Objective{k8sObjective}}
	rt := Target{Name: "r", API: apiRealtime, Stream: true, Objectives: []slo.Objective{k8sObjective}}
	cost := func(targets []Target, windows int) int {
		var objs []slo.Objective
		for _, tg := range targets {
			objs = append(objs, tg.Objectives...)
		}
		b, err := SeriesBudget(targets, windows, Options{Getenv: noEnv, WindowGauges: &defaultGauges, ExtraBoundaries: SLOBoundaries(objs)})
		if err != nil {
			t.Fatal(err)
		}
		return b.Targets[0]
	}
	two := http
	two.Objectives = []slo.Objective{k8sObjective, second}
	// A window adds 2 + 7 + 4; the realtime target has no phases (−56),
	// two round-trip histograms of 21 + 3 (+48) and two more p99 gauges per
	// window (+6); a second objective set adds 2 + 13 counters (its
	// reasons: 9 + latency), 2 gauges and 4 per window, and its 10 s
	// threshold is a boundary already.
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"one window", cost([]Target{http}, 1), 475 - 2*13},
		{"four windows", cost([]Target{http}, 4), 475 + 13},
		{"realtime", cost([]Target{rt}, 3), 475 - 56 + 48 + 6},
		{"two objective sets", cost([]Target{two}, 3), 475 + 1 + 1 + 10 + 2 + 3*4 + 9},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d series per target, want %d", tc.name, tc.got, tc.want)
		}
	}
	many := make([]Target, 200)
	for i := range many {
		many[i] = two
		many[i].Name = fmt.Sprintf("t%d", i)
	}
	b, err := SeriesBudget(many, 3, Options{Getenv: noEnv, WindowGauges: &defaultGauges, ExtraBoundaries: SLOBoundaries(two.Objectives)})
	if err != nil {
		t.Fatal(err)
	}
	// The largest instrument is non-conforming requests: 200 × (11 + 10).
	if l := b.Largest(); b.Total != 200*510+2 || l.Sets != 4200 || b.CardinalityLimit() != 8400 {
		t.Errorf("200 targets: %d series, largest %+v, limit %d; want %d, 4200 sets, 8400", b.Total, l, b.CardinalityLimit(), 200*510+2)
	}
}

// TestSeriesBudgetMatchesExposition drives every series that can exist —
// every error type, phase, turn delay, round trip, window gauge with its
// intervals — for three kinds of target, and compares what /metrics
// exposes, instrument by instrument, with SeriesBudget.
func TestSeriesBudgetMatchesExposition(t *testing.T) {
	strict := slo.Objective{Name: "strict", Attainment: 0.999, Period: 7 * 24 * time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: 70 * time.Millisecond}, {Quantity: slo.TPOT, Max: 33 * time.Millisecond}}}
	targets := []Target{
		{Name: "conv", API: "chat", Stream: true, Conversations: true, ServerAddress: "h", ServerPort: 1,
			Objectives: []slo.Objective{k8sObjective, strict}},
		{Name: "closed", API: "completions", ClosedLoop: true, ServerAddress: "h", ServerPort: 2,
			Objectives: []slo.Objective{strict}},
		{Name: "rt", API: apiRealtime, Stream: true, ServerAddress: "h", ServerPort: 3, Objectives: []slo.Objective{k8sObjective}},
	}
	for _, tc := range []struct {
		name   string
		gauges *WindowGauges
	}{
		{"every window gauge", nil},
		{"the default window gauges", &defaultGauges},
		{"means and rates", &WindowGauges{Means: true, Rates: true, Intervals: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []slo.Objective
			for _, tg := range targets {
				objs = append(objs, tg.Objectives...)
			}
			opts := Options{Version: "1", Getenv: noEnv, WindowGauges: tc.gauges, ExtraBoundaries: SLOBoundaries(objs)}
			want, err := SeriesBudget(targets, 3, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := exposeEverything(t, targets, opts)
			wantBy := map[string]int{}
			for _, ib := range want.Instruments {
				wantBy[ib.Name] = ib.Series
			}
			total := 0
			for name, n := range got {
				total += n
				if wantBy[name] != n {
					t.Errorf("%s: %d series exposed, budget %d", name, n, wantBy[name])
				}
			}
			for name, n := range wantBy {
				if _, ok := got[name]; !ok {
					t.Errorf("%s: budget %d, none exposed", name, n)
				}
			}
			if total != want.Total {
				t.Errorf("%d series exposed, budget %d", total, want.Total)
			}
		})
	}
}

// exposeEverything records every series that targets can have into fresh
// Metrics with opts, and returns the Prometheus series of each family
// (not the Go and process collectors).
func exposeEverything(t *testing.T, targets []Target, opts Options) map[string]int {
	t.Helper()
	m, err := NewMetrics(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	o, err := NewObserver(m, targets)
	if err != nil {
		t.Fatal(err)
	}
	clk := fakeAt(t0)
	var stores []*window.Store
	for _, tg := range targets {
		recordEveryKind(o, &tg)
		stores = append(stores, fullStore(t, clk, &tg))
	}
	clk.Set(at(3600000 + 15*3700 + 100))
	newTestWindows(t, m, o, stores...)
	out := map[string]int{}
	for _, mf := range gather(t, m) {
		n := mf.GetName()
		if strings.HasPrefix(n, "go_") || strings.HasPrefix(n, "process_") {
			continue
		}
		for _, mt := range mf.GetMetric() {
			if mf.GetType() == dto.MetricType_HISTOGRAM {
				out[n] += len(mt.GetHistogram().GetBucket()) + 3
			} else {
				out[n]++
			}
		}
	}
	return out
}

// recordEveryKind drives every histogram series of tg: the outcomes and
// phases of recordEverything, an errored request without an error type,
// and round trips for a realtime target.
func recordEveryKind(o *Observer, tg *Target) {
	recordEverything(o, tg.Name)
	other := alphaErr()
	other.Target, other.ErrorType = tg.Name, probe.ErrorNone
	o.Started(tg.Name)
	o.Finished(other)
	rt := alphaOK()
	rt.Target, rt.Sent, rt.Received = tg.Name, ats(10, 20), ats(260, 320)
	o.Started(tg.Name)
	o.Finished(rt)
}

// fullStore returns tg's windows holding 3700 requests in the last minute
// (3700 ≥ 3688: every percentile has its interval, p99.9 too), mixed in
// duration so that every objective set has conforming and non-conforming
// requests, with every quantity tg can have.
func fullStore(t *testing.T, clk *clock.Fake, tg *Target) *window.Store {
	t.Helper()
	st := newWindowStore(t, clk, tg.Name, window.Settings{Confidence: 0.95, SampleCap: 360000, Objectives: tg.Objectives})
	for j := range 3700 {
		start := 3600000 + 15*j
		targeted := start - j%7
		if tg.ClosedLoop {
			targeted = -1
		}
		rec := streamed(tg.Name, uint64(j), targeted, start, start+20+j%11, start+60+j%13, start+70+j%17, 10+j%5, 5+j%3)
		rec.API, rec.Stream = tg.API, tg.Stream
		if !tg.Stream {
			rec.FirstChunk, rec.FirstToken, rec.FirstOutputToken, rec.LastToken = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		}
		if tg.realtime() {
			rec.Sent, rec.Received = ats(start, start+5+j%3), ats(start+20+j%11, start+60+j%13)
		}
		st.Started(tg.Name)
		st.Finished(rec)
	}
	return st
}

// TestSeriesBudgetThresholdBoundaries: a threshold that is not a default
// boundary is a boundary of its histogram for every target (OpenTelemetry
// views are per instrument). Two targets with TTFT thresholds of 301 and
// 302 ms add 2 boundaries to the TTFT histogram, which has one attribute
// set per streamed target: 2 × 2 = 4 series; a threshold at a default
// boundary (500 ms) adds none.
func TestSeriesBudgetThresholdBoundaries(t *testing.T) {
	ttft := func(name string, ms time.Duration) Target {
		o := slo.Objective{Name: "d", Attainment: 0.99, Period: 30 * 24 * time.Hour,
			Thresholds: []slo.Threshold{{Quantity: slo.TTFT, Max: ms * time.Millisecond}}}
		return Target{Name: name, API: "chat", Stream: true, Objectives: []slo.Objective{o}}
	}
	for _, tc := range []struct {
		targets            []Target
		boundaries, series int
	}{
		{[]Target{ttft("a", 301), ttft("b", 302)}, 2, 4},
		{[]Target{ttft("a", 301), ttft("b", 301), ttft("c", 301)}, 1, 3},
		{[]Target{ttft("a", 500), ttft("b", 500)}, 0, 0},
	} {
		var objs []slo.Objective
		for _, t := range tc.targets {
			objs = append(objs, t.Objectives...)
		}
		b, err := SeriesBudget(tc.targets, 3, Options{Getenv: noEnv, WindowGauges: &defaultGauges, ExtraBoundaries: SLOBoundaries(objs)})
		if err != nil {
			t.Fatal(err)
		}
		if b.ThresholdBoundaries != tc.boundaries || b.ThresholdSeries != tc.series {
			t.Errorf("%d targets: %d boundaries, %d series; want %d, %d", len(tc.targets), b.ThresholdBoundaries, b.ThresholdSeries,
				tc.boundaries, tc.series)
		}
	}
}
