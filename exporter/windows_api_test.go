package exporter

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// The API's documents as a client decodes them (see the README).
type (
	jsonInterval struct{ Lower, Upper float64 }
	jsonSummary  struct {
		Unit        string                 `json:"unit"`
		Weighted    bool                   `json:"weighted"`
		Approximate bool                   `json:"approximate"`
		Count       int64                  `json:"count"`
		Sum         *float64               `json:"sum"`
		Mean        *float64               `json:"mean"`
		MeanCI      *jsonInterval          `json:"mean_ci"`
		Median      *float64               `json:"median"`
		Variance    *float64               `json:"variance"`
		StdDev      *float64               `json:"std_dev"`
		Min         *float64               `json:"min"`
		Max         *float64               `json:"max"`
		Percentiles map[string]jsonPercent `json:"percentiles"`
	}
	jsonPercent struct {
		Value *float64      `json:"value"`
		CI    *jsonInterval `json:"ci"`
	}
	jsonStatuses[T any] struct {
		Successful T `json:"successful"`
		Errored    T `json:"errored"`
		Incomplete T `json:"incomplete"`
		All        T `json:"all"`
	}
	jsonRecord struct {
		Seq              uint64              `json:"seq"`
		Outcome          string              `json:"outcome"`
		ErrorType        *string             `json:"error_type"`
		ErrorCode        json.RawMessage     `json:"error_code"`
		Inconsistent     bool                `json:"usage_inconsistent"`
		Clamped          bool                `json:"tokens_clamped"`
		Weight           float64             `json:"weight"`
		TargetedStart    *time.Time          `json:"targeted_start"`
		RequestStart     *time.Time          `json:"request_start"`
		FirstToken       *time.Time          `json:"first_token"`
		FirstOutputToken *time.Time          `json:"first_output_token"`
		LastToken        *time.Time          `json:"last_token"`
		End              *time.Time          `json:"end"`
		PromptTokens     *int                `json:"prompt_tokens"`
		OutputTokens     *int                `json:"output_tokens"`
		Values           map[string]*float64 `json:"values"`
		Included         []string            `json:"included"`
	}
	jsonWindow struct {
		Target                string                                `json:"target"`
		Window                string                                `json:"window"`
		Start                 time.Time                             `json:"start"`
		End                   time.Time                             `json:"end"`
		LengthSeconds         float64                               `json:"length_seconds"`
		Measuring             bool                                  `json:"measuring"`
		Approximate           bool                                  `json:"approximate"`
		Confidence            *float64                              `json:"confidence"`
		Requests              jsonStatuses[int64]                   `json:"requests"`
		InFlight              int                                   `json:"in_flight"`
		RequestsPerSecond     jsonStatuses[*float64]                `json:"requests_per_second"`
		OutputTokens          jsonStatuses[float64]                 `json:"output_tokens"`
		PromptTokens          jsonStatuses[float64]                 `json:"prompt_tokens"`
		OutputTokensPerSecond jsonStatuses[*float64]                `json:"output_tokens_per_second"`
		TotalTokensPerSecond  jsonStatuses[*float64]                `json:"total_tokens_per_second"`
		Concurrency           *float64                              `json:"concurrency"`
		Summaries             map[string]jsonStatuses[*jsonSummary] `json:"summaries"`
		Records               *struct {
			Sampled  bool         `json:"sampled"`
			Requests []jsonRecord `json:"requests"`
			Running  []time.Time  `json:"running"`
		} `json:"records"`
	}
)

// apiFixture serves the windows of target alpha (1m and 5m, no cache) read
// at t0 + 120 s, so the 1m window is [60 s, 120 s]:
//
//	seq 0 ended at 40 s: outside the 1m window.
//	seq 1 started at 58 s, first token 59.5, last 61, end 61.5: counted,
//	  no TTFT or dispatch delay (before 60 s), 10 output tokens of which
//	  (61 − 60)/(61 − 59.5) = 2/3 inside.
//	seq 2 targeted 70 s, started 70.05, first token 70.3, last 71, end 71.1.
//	seq 3 errored at 80.5 s after starting at 80 s, without tokens.
//	seq 4 incomplete: started 90, first token 90.2, last 90.8, cancelled at 95.
//	seq 5 targeted 99.9, started 100, first token 100.1, last 100.4, end 100.5.
//	One request started at 110 s is still running.
func apiFixture(t *testing.T) (string, *http.Client) {
	t.Helper()
	m, o := newTestMetrics(t, alpha)
	o.State("alpha", probe.StateReady, 0)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{time.Minute, 5 * time.Minute}, Confidence: 0.95})
	errored := &probe.Record{Target: "alpha", Seq: 3, Stream: true, RequestStart: at(80000), End: at(80500),
		PromptTokens: 20, PromptTokensFrom: probe.TokensFromWorkload, Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx, HTTPStatus: 503,
		ErrorCode: probe.ErrorCode{Text: "overloaded", Kind: probe.CodeString}}
	incomplete := streamed("alpha", 4, -1, 90000, 90200, 90800, 95000, 15, 3)
	incomplete.Outcome, incomplete.ErrorType, incomplete.OutputTokensFrom = probe.Incomplete, probe.ErrorCanceled, probe.TokensCounted
	flagged := streamed("alpha", 1, 58000, 58000, 59500, 61000, 61500, 12, 10)
	flagged.UsageInconsistent, flagged.TokensClamped = true, true
	for _, r := range []*probe.Record{
		streamed("alpha", 0, 30000, 30000, 30100, 39000, 40000, 10, 9),
		flagged,
		streamed("alpha", 2, 70000, 70050, 70300, 71000, 71100, 20, 8),
		errored, incomplete,
		streamed("alpha", 5, 99900, 100000, 100100, 100400, 100500, 30, 5),
	} {
		st.Started("alpha")
		st.Finished(r)
	}
	clk.Set(at(110000))
	st.Started("alpha")
	clk.Set(at(120000))
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	return startServer(t, s)
}

// getJSON fetches url into v and returns the status code.
func getJSON(t *testing.T, c *http.Client, url string, v any) int {
	t.Helper()
	code, body, hdr := get(t, c, http.MethodGet, url, nil)
	if ct := hdr.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q", url, ct)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%s: %v\n%s", url, err, body)
	}
	return code
}

// Every figure of the window is recomputed here from the records the API
// returns, by the definitions, without its derived values.
func TestWindowAPIRecomputed(t *testing.T) {
	base, c := apiFixture(t)
	var w jsonWindow
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/windows/1m?records=true", &w); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if w.Target != "alpha" || w.Window != "1m" || !w.Start.Equal(at(60000)) || !w.End.Equal(at(120000)) ||
		w.LengthSeconds != 60 || !w.Measuring || w.Approximate || w.Confidence == nil || *w.Confidence != 0.95 {
		t.Fatalf("window header %+v", w)
	}
	if w.Records == nil || w.Records.Sampled || len(w.Records.Requests) != 5 || len(w.Records.Running) != 1 {
		t.Fatalf("records %+v; want 5 exact records and 1 running", w.Records)
	}
	recs := w.Records.Requests
	for _, r := range recs {
		if r.Weight != 1 || r.End.Before(w.Start) || r.End.After(w.End) {
			t.Errorf("record %d: weight %v, end %v outside the window", r.Seq, r.Weight, r.End)
		}
	}
	recomputeCounts(t, &w, recs)
	recomputeSummaries(t, &w, recs)
	recomputeTokensAndConcurrency(t, &w, recs)
}

// recomputeCounts checks requests by outcome and their rates.
func recomputeCounts(t *testing.T, w *jsonWindow, recs []jsonRecord) {
	t.Helper()
	n := map[string]int64{}
	for _, r := range recs {
		n[r.Outcome]++
	}
	if w.Requests.Successful != n["successful"] || w.Requests.Errored != n["errored"] ||
		w.Requests.Incomplete != n["incomplete"] || w.Requests.All != int64(len(recs)) {
		t.Errorf("requests %+v, records by outcome %v", w.Requests, n)
	}
	if w.RequestsPerSecond.All == nil || !near(*w.RequestsPerSecond.All, float64(len(recs))/w.LengthSeconds) {
		t.Errorf("requests per second %v, want %d/%v", w.RequestsPerSecond.All, len(recs), w.LengthSeconds)
	}
}

// secs returns b − a in seconds, and whether both exist.
func secs(a, b *time.Time) (float64, bool) {
	if a == nil || b == nil {
		return 0, false
	}
	return b.Sub(*a).Seconds(), true
}

// in reports whether t exists and lies in the window.
func (w *jsonWindow) in(t *time.Time) bool {
	return t != nil && !t.Before(w.Start) && !t.After(w.End)
}

// recomputed returns metric m's value and weight for r when r counts in
// the window's summary of m, by the definitions and inclusion rules.
func (w *jsonWindow) recomputed(m string, r *jsonRecord) (v float64, weight int, ok bool) {
	finished := r.Outcome != "incomplete"
	out := 0
	if r.OutputTokens != nil {
		out = *r.OutputTokens
	}
	switch m {
	case "request_latency":
		v, ok = secs(r.RequestStart, r.End)
		return v, 1, ok && finished
	case "time_to_first_token":
		v, ok = secs(r.RequestStart, r.FirstToken)
		return v, 1, ok && w.in(r.FirstToken)
	case "time_to_first_output_token":
		v, ok = secs(r.RequestStart, r.FirstOutputToken)
		return v, 1, ok && w.in(r.FirstOutputToken)
	case "inter_token_latency":
		v, ok = secs(r.FirstToken, r.LastToken)
		return v / float64(out-1), out - 1, ok && out >= 2
	case "time_per_output_token":
		v, ok = secs(r.RequestStart, r.LastToken)
		return v / float64(out), out, ok && out >= 1
	case "dispatch_delay":
		v, ok = secs(r.TargetedStart, r.RequestStart)
		return v, 1, ok && w.in(r.RequestStart)
	case "scheduled_latency":
		v, ok = secs(r.TargetedStart, r.End)
		return v, 1, ok && finished && w.in(r.RequestStart)
	case "prompt_tokens":
		return float64(val0(r.PromptTokens)), 1, r.PromptTokens != nil
	case "output_tokens":
		return float64(out), 1, r.OutputTokens != nil
	}
	return 0, 0, false
}

func val0(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// recomputeSummaries checks count, mean, min, max and every percentile of
// every metric but the iteration count, for each outcome and for all.
func recomputeSummaries(t *testing.T, w *jsonWindow, recs []jsonRecord) {
	t.Helper()
	metrics := []string{"request_latency", "time_to_first_token", "time_to_first_output_token", "inter_token_latency",
		"time_per_output_token", "dispatch_delay", "scheduled_latency", "prompt_tokens", "output_tokens"}
	for _, m := range metrics {
		byStatus := w.Summaries[m]
		for status, got := range map[string]*jsonSummary{"successful": byStatus.Successful, "errored": byStatus.Errored,
			"incomplete": byStatus.Incomplete, "all": byStatus.All} {
			var vs []float64
			var ws []int
			for i := range recs {
				if v, wt, ok := w.recomputed(m, &recs[i]); ok && (status == "all" || recs[i].Outcome == status) {
					vs, ws = append(vs, v), append(ws, wt)
				}
			}
			checkSummary(t, m+" "+status, got, vs, ws)
		}
	}
}

// checkSummary compares a summary with values vs of weights ws: count
// (Σw), weighted mean, population variance Σw·(v − mean)²/Σw and its
// square root, min, max, and each percentile as the smallest value whose
// cumulative weight reaches q·Σw (rank ⌈q·n⌉ for unit weights).
func checkSummary(t *testing.T, what string, got *jsonSummary, vs []float64, ws []int) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no summary", what)
	}
	idx := make([]int, len(vs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(vs[a], vs[b]) })
	total, sum := 0, 0.0
	for i, v := range vs {
		total += ws[i]
		sum += v * float64(ws[i])
	}
	if got.Count != int64(total) {
		t.Errorf("%s: count %d, want %d", what, got.Count, total)
	}
	if total == 0 {
		if got.Mean != nil || got.Percentiles["p50"].Value != nil {
			t.Errorf("%s: figures of an empty summary", what)
		}
		return
	}
	mean, sq := sum/float64(total), 0.0
	for i, v := range vs {
		sq += float64(ws[i]) * (v - mean) * (v - mean)
	}
	want := map[string]float64{"mean": mean, "min": vs[idx[0]], "max": vs[idx[len(idx)-1]],
		"variance": sq / float64(total), "std_dev": math.Sqrt(sq / float64(total))}
	for k, p := range map[string]*float64{"mean": got.Mean, "min": got.Min, "max": got.Max, "variance": got.Variance, "std_dev": got.StdDev} {
		if p == nil || !near(*p, want[k]) {
			t.Errorf("%s: %s %v, want %v", what, k, p, want[k])
		}
	}
	levels := map[string][2]int{"p0.1": {1, 1000}, "p1": {1, 100}, "p5": {5, 100}, "p10": {10, 100}, "p25": {25, 100},
		"p50": {50, 100}, "p75": {75, 100}, "p90": {90, 100}, "p95": {95, 100}, "p99": {99, 100}, "p99.9": {999, 1000}}
	for key, l := range levels {
		cum, v := 0, 0.0
		for _, i := range idx {
			cum += ws[i]
			v = vs[i]
			if cum*l[1] >= l[0]*total {
				break
			}
		}
		p := got.Percentiles[key]
		if p.Value == nil || !near(*p.Value, v) {
			t.Errorf("%s: %s = %v, want %v", what, key, p.Value, v)
		}
		// Five values at most: too few to bound any percentile (p50 needs 6).
		if p.CI != nil {
			t.Errorf("%s: %s has an interval from %d values", what, key, len(vs))
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// recomputeTokensAndConcurrency checks the token totals and rates (output
// tokens spread over [first token, last token], prompt tokens at the first
// token) and the time-weighted concurrency, running request included.
func recomputeTokensAndConcurrency(t *testing.T, w *jsonWindow, recs []jsonRecord) {
	t.Helper()
	var output, prompt, busy float64
	overlap := func(a, b time.Time) float64 {
		lo, hi := maxTime(a, w.Start), minTime(b, w.End)
		return math.Max(hi.Sub(lo).Seconds(), 0)
	}
	for _, r := range recs {
		first, last := r.FirstToken, r.LastToken
		if first == nil {
			first, last = r.End, r.End
		}
		if r.OutputTokens != nil {
			if span := last.Sub(*first).Seconds(); span > 0 {
				output += float64(*r.OutputTokens) * overlap(*first, *last) / span
			} else if w.in(first) {
				output += float64(*r.OutputTokens)
			}
		}
		if r.PromptTokens != nil && w.in(first) {
			prompt += float64(*r.PromptTokens)
		}
		busy += overlap(*r.RequestStart, *r.End)
	}
	for _, s := range w.Records.Running {
		busy += overlap(s, w.End)
	}
	// Hand check of the fixture: 10·2/3 + 8 + 3 + 5 output tokens; prompt
	// 20 + 20 + 15 + 30 (seq 1's first token precedes the window);
	// busy 1.5 + 1.05 + 0.5 + 5 + 0.5 + 10 s.
	checks := []struct {
		what      string
		got       float64
		recomp, h float64
	}{
		{"output tokens", w.OutputTokens.All, output, 10.0*2/3 + 16},
		{"prompt tokens", w.PromptTokens.All, prompt, 85},
		{"concurrency", fderef(w.Concurrency), busy / w.LengthSeconds, 18.55 / 60},
		{"output tokens/s", fderef(w.OutputTokensPerSecond.All), output / w.LengthSeconds, (10.0*2/3 + 16) / 60},
		{"total tokens/s", fderef(w.TotalTokensPerSecond.All), (output + prompt) / w.LengthSeconds, (10.0*2/3 + 16 + 85) / 60},
	}
	for _, c := range checks {
		if !near(c.got, c.recomp) || !near(c.recomp, c.h) {
			t.Errorf("%s: API %v, recomputed %v, by hand %v", c.what, c.got, c.recomp, c.h)
		}
	}
}

func fderef(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// near reports agreement to 1e-9, relative for large values.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestWindowAPITargets(t *testing.T) {
	base, c := apiFixture(t)
	var got struct {
		Confidence *float64 `json:"confidence"`
		Targets    []struct {
			Name, Model, API, State string
			Stream                  bool
			MeasureStart            *time.Time `json:"measure_start"`
			Windows                 []jsonWindow
		}
	}
	if code := getJSON(t, c, base+"/api/v1/targets", &got); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if got.Confidence == nil || *got.Confidence != 0.95 || len(got.Targets) != 1 {
		t.Fatalf("got %+v", got)
	}
	tg := got.Targets[0]
	if tg.Name != "alpha" || tg.Model != "llama-3-8b" || tg.API != "chat" || !tg.Stream || tg.State != "ready" ||
		tg.MeasureStart == nil || !tg.MeasureStart.Equal(t0) {
		t.Errorf("target %+v", tg)
	}
	if len(tg.Windows) != 2 || tg.Windows[0].Window != "1m" || tg.Windows[1].Window != "5m" {
		t.Fatalf("windows %+v", tg.Windows)
	}
	// The list carries the successful summaries only, and no records.
	w := tg.Windows[1]
	lat := w.Summaries["request_latency"]
	if lat.Successful == nil || lat.Errored != nil || lat.All != nil || w.Records != nil {
		t.Errorf("5m window: latency summaries %+v, records %v; want successful only", lat, w.Records)
	}
	// The 5m window ([0, 120 s], length 120 s) holds all 6 finished requests.
	if w.Requests.All != 6 || w.LengthSeconds != 120 || lat.Successful.Count != 4 {
		t.Errorf("5m window: %d requests, length %v, %d latencies; want 6, 120, 4", w.Requests.All, w.LengthSeconds, lat.Successful.Count)
	}
}

func TestWindowAPIErrors(t *testing.T) {
	base, c := apiFixture(t)
	tests := []struct {
		path string
		code int
		msg  string
	}{
		{"/api/v1/targets/nope/windows/1m", http.StatusNotFound, `unknown target "nope"`},
		{"/api/v1/targets/alpha/windows/2m", http.StatusNotFound, `unknown window "2m" of target "alpha" (configured: 1m, 5m)`},
		{"/api/v1/targets/alpha/windows/soon", http.StatusNotFound, `unknown window "soon"`},
		{"/api/v1/targets/alpha", http.StatusNotFound, "unknown API path /api/v1/targets/alpha"},
		{"/api/v1/targets/alpha/windows/1m?records=maybe", http.StatusBadRequest, `records="maybe": want true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var body struct{ Error string }
			if code := getJSON(t, c, base+tt.path, &body); code != tt.code || !strings.Contains(body.Error, tt.msg) {
				t.Errorf("%d %q, want %d with %q", code, body.Error, tt.code, tt.msg)
			}
		})
	}
	// "60s" names the 1m window too.
	var w jsonWindow
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/windows/60s", &w); code != http.StatusOK || w.Window != "1m" {
		t.Errorf("60s: %d, window %q; want 200 and 1m", code, w.Window)
	}
}

func TestWindowLandingPage(t *testing.T) {
	base, c := apiFixture(t)
	code, body, _ := get(t, c, http.MethodGet, base+"/", nil)
	if code != http.StatusOK {
		t.Fatalf("landing page: %d", code)
	}
	// The 1m window's successful latencies are 3.5, 1.05 and 0.5 s (seq 1,
	// 2, 5): mean 5.05/3 = 1683.3 ms, squared deviations 5.101667, sample
	// standard deviation √(5.101667/2) = 1.597133 s, half-width
	// t(0.975, 2)·1.597133/√3 = 4.3026527·0.922105 = 3967.5 ms; p50 (rank
	// 2) = 1050.0 ms, which 3 values cannot bound: "*".
	for _, want := range []string{"Rolling windows", "<td>1m</td>", "<td>3 / 1 / 1</td>", "1683.3 ± 3967.5 ms", "1050.0 ms*",
		"95 % interval"} {
		if !strings.Contains(body, want) {
			t.Errorf("landing page lacks %q", want)
		}
	}
}

// With a cap that keeps 1 record per bucket, the API flags the estimates:
// the window and its records are sampled, the summaries approximate with no
// percentile interval, and the weights add up to the counts.
func TestWindowAPIApproximate(t *testing.T) {
	clk := fakeAt(t0)
	// One 12m window: buckets of 1 s, 720/720 = 1 record each.
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{12 * time.Minute}, SampleCap: 720, Confidence: 0.95})
	for i := range 10 {
		st.Started("alpha")
		st.Finished(streamed("alpha", uint64(i), -1, 5000+50*i, 5010+50*i, 5020+50*i, 5030+50*i, 10, 3))
	}
	clk.Set(at(60000))
	w := newTestWindows(t, nil, nil, st)
	s := NewServer(ServerOptions{Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	var got jsonWindow
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/windows/12m?records=true", &got); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	lat := got.Summaries["request_latency"].Successful
	if !got.Approximate || !got.Records.Sampled || !lat.Approximate || lat.Count != 10 || got.Requests.All != 10 {
		t.Fatalf("approximate %v sampled %v latency approximate %v count %d requests %d; want true, true, true, 10, 10",
			got.Approximate, got.Records.Sampled, lat.Approximate, lat.Count, got.Requests.All)
	}
	// Every latency is 30 ms: mean, min and max are exact.
	if lat.Mean == nil || !near(*lat.Mean, 0.03) || *lat.Min != *lat.Max {
		t.Errorf("latency mean %v min %v max %v, want 0.03 each", lat.Mean, lat.Min, lat.Max)
	}
	for k, p := range lat.Percentiles {
		if p.CI != nil {
			t.Errorf("%s has an interval in an estimate", k)
		}
	}
	var weight float64
	for _, r := range got.Records.Requests {
		weight += r.Weight
	}
	if len(got.Records.Requests) != 1 || weight != 10 {
		t.Errorf("%d records weighing %v, want 1 standing for 10", len(got.Records.Requests), weight)
	}
}

// TestWindowAPIRecordFields: each record carries the server's error code
// (null without one) and the usage flags.
func TestWindowAPIRecordFields(t *testing.T) {
	base, c := apiFixture(t)
	var w jsonWindow
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/windows/1m?records=true", &w); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	for _, r := range w.Records.Requests {
		wantCode := "null"
		if r.Seq == 3 {
			wantCode = `"overloaded"`
		}
		if string(r.ErrorCode) != wantCode || r.Inconsistent != (r.Seq == 1) || r.Clamped != (r.Seq == 1) {
			t.Errorf("record %d: code %s, inconsistent %v, clamped %v", r.Seq, r.ErrorCode, r.Inconsistent, r.Clamped)
		}
	}
}

// TestWindowAPIErrorCodeTypes: the API keeps an error code's JSON type: the
// number 400 and the string "400" differ, and another value (an object,
// true) is a string of its JSON text, never null.
func TestWindowAPIErrorCodeTypes(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	o.State("alpha", probe.StateReady, 0)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{time.Minute}})
	codes := []probe.ErrorCode{{Text: "400", Kind: probe.CodeNumber}, {Text: "400", Kind: probe.CodeString},
		{Text: `{"x":1}`, Kind: probe.CodeOther}, {Text: "true", Kind: probe.CodeOther}, {Text: "1.5e3", Kind: probe.CodeNumber}}
	for i, code := range codes {
		st.Started("alpha")
		st.Finished(&probe.Record{Target: "alpha", Seq: uint64(i), Stream: true, RequestStart: at(1000 * (i + 1)), End: at(1000*(i+1) + 500),
			Outcome: probe.Errored, ErrorType: probe.ErrorStream, HTTPStatus: 200, ErrorCode: code})
	}
	clk.Set(at(10000))
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	var got jsonWindow
	if code := getJSON(t, c, base+"/api/v1/targets/alpha/windows/1m?records=true", &got); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	want := []string{`400`, `"400"`, `"{\"x\":1}"`, `"true"`, `1.5e3`}
	if len(got.Records.Requests) != len(want) {
		t.Fatalf("%d records, want %d", len(got.Records.Requests), len(want))
	}
	for _, r := range got.Records.Requests {
		if string(r.ErrorCode) != want[r.Seq] {
			t.Errorf("record %d: error_code %s, want %s", r.Seq, r.ErrorCode, want[r.Seq])
		}
	}
}
