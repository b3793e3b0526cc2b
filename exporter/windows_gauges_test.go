package exporter

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// goldenWindow is the exposition of one hand-built window: the 1m window of
// target "w" read at t0 + 30 s (its effective start is t0, 30 s before),
// with two successful streamed requests and no arrival schedule:
//
//	A: start 10 s, first token 10.2, last 10.5, end 10.6; 10 prompt, 4 output tokens.
//	B: start 20 s, first token 20.4, last 20.6, end 21.0; 20 prompt, 3 output tokens.
//
// Latency 0.6 and 1.0: p50 is rank ⌈0.5·2⌉ = 1, every higher level rank 2;
// mean 0.8; mean interval 0.8 ± t(0.975, 1)·s/√2 with s = √((0.2² + 0.2²)/1),
// that is 0.8 ± 12.706204736174698·0.2. TTFT = TTFOT: 0.2 and 0.4, mean 0.3
// ± 12.706204736174698·0.1. ITL (10.5 − 10.2)/3 = 0.1 weight 3 and
// (20.6 − 20.4)/2 = 0.1 weight 2: 0.1 everywhere, no interval. TPOT
// 0.5/4 = 0.125 weight 4 and 0.6/3 = 0.2 weight 3: mean 1.1/7, p50 at
// cumulative weight 3.5 → 0.125, p90 and above → 0.2. Prompt tokens 10 and
// 20: mean 15 ± 12.706204736174698·5; output tokens 4 and 3: mean 3.5 ±
// 12.706204736174698·0.5. No dispatch delay or scheduled latency, and no
// percentile interval (n < 6). Rates over 30 s: 2 requests, 7 output tokens,
// 37 tokens in all; busy 0.6 + 1.0 s. Objective set "fast" (latency ≤ 0.8
// s): A conforms, B does not; attainment 1/2 with Wilson interval at 0.95
// (z = 1.959964, z²/n = 1.9207294): centre 0.5, half-width
// z/2.9207294 · √(0.25/2 + 1.9207294/8) = 0.4054688; goodput 1/30 requests
// and 4/30 output tokens per second; the verdict against 0.99 is breached
// (upper bound 0.9055 < 0.99).
var goldenWindow = `
llmprober_window_slo_verdict{objective="fast",target="w",verdict="breached",window="1m"} 1
llmprober_window_slo_verdict{objective="fast",target="w",verdict="inconclusive",window="1m"} 0
llmprober_window_slo_verdict{objective="fast",target="w",verdict="met",window="1m"} 0
llmprober_window_goodput_output_tokens_per_second{objective="fast",target="w",window="1m"} 0.13333333333333333
llmprober_window_goodput_requests_per_second{objective="fast",target="w",window="1m"} 0.03333333333333333
llmprober_window_slo_attainment{objective="fast",target="w",window="1m"} 0.5
llmprober_window_slo_attainment_ci_lower{objective="fast",target="w",window="1m"} 0.09453120573423074
llmprober_window_slo_attainment_ci_upper{objective="fast",target="w",window="1m"} 0.9054687942657693
llmprober_window_slo_evaluated_requests{objective="fast",target="w",window="1m"} 2
llmprober_window_approximate{target="w",window="1m"} 0
llmprober_window_concurrency{target="w",window="1m"} 0.053333333333333333
llmprober_window_finished_requests{status="errored",target="w",window="1m"} 0
llmprober_window_finished_requests{status="incomplete",target="w",window="1m"} 0
llmprober_window_finished_requests{status="successful",target="w",window="1m"} 2
llmprober_window_length_seconds{target="w",window="1m"} 30
llmprober_window_mean_ci_lower_seconds{metric="request_latency",target="w",window="1m"} -1.7412409472349396
llmprober_window_mean_ci_lower_seconds{metric="time_to_first_output_token",target="w",window="1m"} -0.9706204736174698
llmprober_window_mean_ci_lower_seconds{metric="time_to_first_token",target="w",window="1m"} -0.9706204736174698
llmprober_window_mean_ci_upper_seconds{metric="request_latency",target="w",window="1m"} 3.3412409472349397
llmprober_window_mean_ci_upper_seconds{metric="time_to_first_output_token",target="w",window="1m"} 1.5706204736174698
llmprober_window_mean_ci_upper_seconds{metric="time_to_first_token",target="w",window="1m"} 1.5706204736174698
llmprober_window_mean_seconds{metric="inter_token_latency",target="w",window="1m"} 0.1
llmprober_window_mean_seconds{metric="request_latency",target="w",window="1m"} 0.8
llmprober_window_mean_seconds{metric="time_per_output_token",target="w",window="1m"} 0.15714285714285714
llmprober_window_mean_seconds{metric="time_to_first_output_token",target="w",window="1m"} 0.3
llmprober_window_mean_seconds{metric="time_to_first_token",target="w",window="1m"} 0.3
llmprober_window_output_tokens_per_second{status="errored",target="w",window="1m"} 0
llmprober_window_output_tokens_per_second{status="incomplete",target="w",window="1m"} 0
llmprober_window_output_tokens_per_second{status="successful",target="w",window="1m"} 0.23333333333333334
llmprober_window_requests_per_second{status="errored",target="w",window="1m"} 0
llmprober_window_requests_per_second{status="incomplete",target="w",window="1m"} 0
llmprober_window_requests_per_second{status="successful",target="w",window="1m"} 0.06666666666666667
llmprober_window_tokens_mean{metric="output_tokens",target="w",window="1m"} 3.5
llmprober_window_tokens_mean{metric="prompt_tokens",target="w",window="1m"} 15
llmprober_window_tokens_mean_ci_lower{metric="output_tokens",target="w",window="1m"} -2.853102368087349
llmprober_window_tokens_mean_ci_lower{metric="prompt_tokens",target="w",window="1m"} -48.53102368087349
llmprober_window_tokens_mean_ci_upper{metric="output_tokens",target="w",window="1m"} 9.853102368087349
llmprober_window_tokens_mean_ci_upper{metric="prompt_tokens",target="w",window="1m"} 78.53102368087349
llmprober_window_total_tokens_per_second{status="errored",target="w",window="1m"} 0
llmprober_window_total_tokens_per_second{status="incomplete",target="w",window="1m"} 0
llmprober_window_total_tokens_per_second{status="successful",target="w",window="1m"} 1.2333333333333334
` + goldenPercentiles

// goldenPercentiles are the percentile series of goldenWindow: p50 is the
// smaller value, p90 to p99.9 the larger (TPOT: 0.125, then 0.2).
var goldenPercentiles = func() string {
	var b strings.Builder
	series := []struct {
		name, metric string
		p50, high    float64
	}{
		{"llmprober_window_percentile_seconds", "inter_token_latency", 0.1, 0.1},
		{"llmprober_window_percentile_seconds", "request_latency", 0.6, 1.0},
		{"llmprober_window_percentile_seconds", "time_per_output_token", 0.125, 0.2},
		{"llmprober_window_percentile_seconds", "time_to_first_output_token", 0.2, 0.4},
		{"llmprober_window_percentile_seconds", "time_to_first_token", 0.2, 0.4},
		{"llmprober_window_tokens_percentile", "output_tokens", 3, 4},
		{"llmprober_window_tokens_percentile", "prompt_tokens", 10, 20},
	}
	for _, s := range series {
		for _, q := range []string{"p50", "p90", "p95", "p99", "p99.9"} {
			v := s.high
			if q == "p50" {
				v = s.p50
			}
			fmt.Fprintf(&b, "%s{metric=%q,percentile=%q,target=\"w\",window=\"1m\"} %v\n", s.name, s.metric, q, v)
		}
	}
	return b.String()
}()

func TestWindowGaugesGolden(t *testing.T) {
	m, _ := newTestMetrics(t)
	clk := fakeAt(t0)
	fast := slo.Objective{Name: "fast", Attainment: 0.99, Period: time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: 800 * time.Millisecond}}}
	st := newWindowStore(t, clk, "w", window.Settings{Windows: []time.Duration{time.Minute}, Confidence: 0.95,
		Objectives: []slo.Objective{fast}})
	for _, r := range []*probe.Record{
		streamed("w", 0, -1, 10000, 10200, 10500, 10600, 10, 4),
		streamed("w", 1, -1, 20000, 20400, 20600, 21000, 20, 3),
	} {
		st.Started("w")
		st.Finished(r)
	}
	clk.Set(at(30000))
	newTestWindows(t, m, nil, st)
	got := windowFamilies(gather(t, m))
	want := parseSeries(t, goldenWindow)
	gotSeries := map[string]float64{}
	for name, mf := range got {
		if mf.GetType() != dto.MetricType_GAUGE || mf.GetHelp() == "" {
			t.Errorf("%s: type %v help %q; want a gauge with help", name, mf.GetType(), mf.GetHelp())
		}
		for _, mt := range mf.GetMetric() {
			gotSeries[seriesKey(name, mt.GetLabel())] = mt.GetGauge().GetValue()
		}
	}
	for _, k := range sortedKeys(want) {
		g, ok := gotSeries[k]
		if !ok {
			t.Errorf("missing %s", k)
		} else if math.Abs(g-want[k]) > 1e-12*math.Max(1, math.Abs(want[k])) {
			t.Errorf("%s = %v, want %v", k, g, want[k])
		}
	}
	for _, k := range sortedKeys(gotSeries) {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %s %v", k, gotSeries[k])
		}
	}
}

// parseSeries parses exposition lines into series keys and values.
func parseSeries(t *testing.T, text string) map[string]float64 {
	t.Helper()
	// Group each family's lines after its TYPE line, as the format requires.
	lines := strings.Split(strings.TrimSpace(text), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l[:strings.IndexAny(l, "{ ")]] = true
	}
	var doc strings.Builder
	for name := range seen {
		fmt.Fprintf(&doc, "# TYPE %s gauge\n", name)
		for _, l := range lines {
			if l[:strings.IndexAny(l, "{ ")] == name {
				doc.WriteString(l + "\n")
			}
		}
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(doc.String()))
	if err != nil {
		t.Fatalf("parse golden: %v", err)
	}
	out := map[string]float64{}
	for name, mf := range fams {
		for _, mt := range mf.GetMetric() {
			out[seriesKey(name, mt.GetLabel())] = mt.GetGauge().GetValue()
		}
	}
	return out
}

// seriesKey is name{labels} with the labels sorted.
func seriesKey(name string, labels []*dto.LabelPair) string {
	var kv []string
	for _, l := range labels {
		kv = append(kv, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(kv)
	return name + "{" + strings.Join(kv, ",") + "}"
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Ten targets with the default windows (1m, 5m, 1h), four objective sets
// and every figure present stay inside the SDK's limit of 2000 series per instrument, with
// no overflow series. Each target has 3700 successful requests in the last
// minute, every quantity defined (3700 ≥ 3688, so even p99.9 has an
// interval), and a cap large enough to keep them all (3700 requests over
// 12–13 buckets of 5 s need more than 300 per bucket; 360 000/720 = 500).
func TestWindowCardinality(t *testing.T) {
	m, _ := newTestMetrics(t)
	clk := fakeAt(t0)
	var stores []*window.Store
	// Four objective sets; "mixed" has conforming and non-conforming
	// requests, so every SLO gauge has its interval.
	var objectives []slo.Objective
	for i, bound := range []time.Duration{time.Second, 50 * time.Millisecond, 60 * time.Millisecond, 80 * time.Millisecond} {
		objectives = append(objectives, slo.Objective{Name: []string{"loose", "tight", "mixed", "p"}[i], Attainment: 0.99,
			Period: time.Hour, Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: bound}}})
	}
	for i := range 10 {
		name := fmt.Sprintf("target-%d", i)
		st := newWindowStore(t, clk, name, window.Settings{Confidence: 0.95, SampleCap: 360000, Objectives: objectives})
		for j := range 3700 {
			start := 3600000 + 15*j // from 1 h on, every 15 ms
			st.Started(name)
			rec := streamed(name, uint64(j), start-j%7, start, start+20+j%11, start+60+j%13, start+70+j%17, 10+j%5, 5+j%3)
			rec.Sent, rec.Received = ats(start, start+5+j%3), ats(start+20+j%11, start+60+j%13) // realtime: every quantity
			st.Finished(rec)
		}
		stores = append(stores, st)
	}
	clk.Set(at(3600000 + 15*3700 + 100))
	newTestWindows(t, m, nil, stores...)
	fams := windowFamilies(gather(t, m))
	// Per instrument: 10 targets × 3 windows = 30 target-windows; × 3
	// statuses for the per-status gauges; × 9 duration metrics (the
	// records are realtime ones, with round trips) × 5 levels for the
	// percentiles, whose intervals exist for the 7 unweighted ones (not ITL
	// or TPOT); × 2 token metrics × 5 levels for the token ones.
	want := map[string]int{
		"llmprober_window_length_seconds":              30,
		"llmprober_window_approximate":                 30,
		"llmprober_window_concurrency":                 30,
		"llmprober_window_finished_requests":           90,
		"llmprober_window_requests_per_second":         90,
		"llmprober_window_output_tokens_per_second":    90,
		"llmprober_window_total_tokens_per_second":     90,
		"llmprober_window_percentile_seconds":          30 * 9 * 5,
		"llmprober_window_percentile_ci_lower_seconds": 30 * 7 * 5,
		"llmprober_window_percentile_ci_upper_seconds": 30 * 7 * 5,
		"llmprober_window_mean_seconds":                30 * 9,
		"llmprober_window_mean_ci_lower_seconds":       30 * 7,
		"llmprober_window_mean_ci_upper_seconds":       30 * 7,
		"llmprober_window_tokens_percentile":           30 * 2 * 5,
		"llmprober_window_tokens_percentile_ci_lower":  30 * 2 * 5,
		"llmprober_window_tokens_percentile_ci_upper":  30 * 2 * 5,
		"llmprober_window_tokens_mean":                 30 * 2,
		"llmprober_window_tokens_mean_ci_lower":        30 * 2,
		"llmprober_window_tokens_mean_ci_upper":        30 * 2,
		// × 4 objective sets.
		"llmprober_window_slo_attainment":                   30 * 4,
		"llmprober_window_slo_attainment_ci_lower":          30 * 4,
		"llmprober_window_slo_attainment_ci_upper":          30 * 4,
		"llmprober_window_slo_evaluated_requests":           30 * 4,
		"llmprober_window_goodput_requests_per_second":      30 * 4,
		"llmprober_window_goodput_output_tokens_per_second": 30 * 4,
		// × 4 objective sets × 3 verdict states.
		"llmprober_window_slo_verdict": 30 * 4 * 3,
	}
	for name, n := range want {
		mf := fams[name]
		if got := len(mf.GetMetric()); got != n {
			t.Errorf("%s: %d series, want %d", name, got, n)
		}
		if n >= 2000 {
			t.Errorf("%s: %d series reach the SDK's limit of 2000", name, n)
		}
		for _, mt := range mf.GetMetric() {
			for _, l := range mt.GetLabel() {
				if strings.Contains(l.GetName(), "overflow") {
					t.Fatalf("%s has an overflow series", name)
				}
			}
		}
	}
	if len(fams) != len(want) {
		t.Errorf("%d window families, want %d", len(fams), len(want))
	}
}

// The window families lint cleanly.
func TestWindowPromlint(t *testing.T) {
	m, _ := newTestMetrics(t)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "w", window.Settings{Confidence: 0.95})
	st.Started("w")
	st.Finished(streamed("w", 0, 0, 10, 20, 30, 40, 5, 3))
	clk.Set(at(1000))
	newTestWindows(t, m, nil, st)
	var fams []*dto.MetricFamily
	for _, mf := range windowFamilies(gather(t, m)) {
		fams = append(fams, mf)
	}
	problems, err := promlint.NewWithMetricFamilies(fams).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}

// A figure that becomes absent stops being exported: once both requests of
// the golden window have left it (at t0 + 85 s the 1m window is [25 s,
// 85 s]), no mean or percentile series is left, and the counts read 0.
func TestWindowGaugesDisappear(t *testing.T) {
	m, _ := newTestMetrics(t)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "w", window.Settings{Windows: []time.Duration{time.Minute}, Confidence: 0.95})
	st.Started("w")
	st.Finished(streamed("w", 0, -1, 10000, 10200, 10500, 10600, 10, 4))
	st.Started("w")
	st.Finished(streamed("w", 1, -1, 20000, 20400, 20600, 21000, 20, 3))
	newTestWindows(t, m, nil, st)
	clk.Set(at(30000))
	if fams := windowFamilies(gather(t, m)); len(fams["llmprober_window_mean_ci_lower_seconds"].GetMetric()) != 3 {
		t.Fatalf("at 30 s: %d mean intervals, want 3", len(fams["llmprober_window_mean_ci_lower_seconds"].GetMetric()))
	}
	clk.Set(at(85000))
	fams := windowFamilies(gather(t, m))
	for _, name := range []string{"llmprober_window_mean_seconds", "llmprober_window_mean_ci_lower_seconds",
		"llmprober_window_percentile_seconds", "llmprober_window_tokens_mean"} {
		if n := len(fams[name].GetMetric()); n != 0 {
			t.Errorf("%s: %d series after the requests left the window, want none", name, n)
		}
	}
	if mt := findMetric(gather(t, m), "llmprober_window_finished_requests", map[string]string{"status": "successful"}); mt == nil || mt.GetGauge().GetValue() != 0 {
		t.Errorf("finished requests %v, want 0", mt)
	}
}

// A target whose windows cannot be computed (a panic, which no input
// should cause) is left out of a collection with an error naming it, handed
// to the SDK's error handler; the other target's gauges are collected, and
// the process goes on.
func TestWindowGaugesSurviveAPanic(t *testing.T) {
	m, _ := newTestMetrics(t)
	clk := fakeAt(t0)
	stores := map[string]*window.Store{}
	for _, name := range []string{"a", "b"} {
		st := newWindowStore(t, clk, name, window.Settings{Windows: []time.Duration{time.Minute}, Confidence: 0.95})
		st.Started(name)
		st.Finished(streamed(name, 0, -1, 10000, 10200, 10500, 10600, 10, 4))
		stores[name] = st
	}
	newTestWindows(t, m, nil, stores["a"], stores["b"])
	clk.Set(at(30000))
	prevCompute := currentAll
	currentAll = func(s *window.Store) []*window.Snapshot {
		if s.Target() == "a" {
			panic("index out of range [-1]")
		}
		return prevCompute(s)
	}
	t.Cleanup(func() { currentAll = prevCompute })
	var handled []error
	var mu sync.Mutex
	prevHandler := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, err)
	}))
	t.Cleanup(func() { otel.SetErrorHandler(prevHandler) })
	fams := gather(t, m)
	if mt := findMetric(fams, "llmprober_window_finished_requests", map[string]string{"target": "b", "status": "successful"}); mt == nil || mt.GetGauge().GetValue() != 1 {
		t.Errorf("b's finished requests %v, want 1", mt)
	}
	if mt := findMetric(fams, "llmprober_window_finished_requests", map[string]string{"target": "a", "status": "successful"}); mt != nil {
		t.Errorf("a's finished requests %v, want none", mt)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(handled) == 0 || !strings.Contains(handled[0].Error(), "could not compute the windows of a: index out of range [-1]") {
		t.Errorf("errors handled %v, want one naming a and the panic", handled)
	}
}
