package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/benchrun"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// benchSchema names the version of the JSON report's schema.
const benchSchema = "llmprober-bench/v1"

// benchDoc is the JSON report: docs/bench.md describes it.
type benchDoc struct {
	Schema     string         `json:"schema"`
	Profile    string         `json:"profile"`
	Benchmarks []benchDocItem `json:"benchmarks"`
	// Goodput is the goodput search of --profile goodput; null otherwise.
	Goodput *goodputDoc `json:"goodput"`
}

// benchDocItem is one benchmark.
type benchDocItem struct {
	Profile string         `json:"profile"`
	Label   string         `json:"label"`
	Config  benchDocConfig `json:"config"`
	// StopReason is max_duration, max_requests, strategy_done or interrupted.
	StopReason  string  `json:"stop_reason"`
	Interrupted bool    `json:"interrupted"`
	RunStart    string  `json:"run_start"`
	RunEnd      string  `json:"run_end"`
	MeasureFrom *string `json:"measure_start"`
	MeasureTo   *string `json:"measure_end"`
	// Window is the measurement window as the status API's window document.
	Window json.RawMessage `json:"window"`
	// RateDistributions are the rates over time; null when nothing was
	// measured.
	RateDistributions *benchRates   `json:"rate_distributions"`
	SLO               []benchDocSLO `json:"slo"`
	// Gate is the --gate outcome over the objective sets (met, breached or
	// inconclusive, after --gate-inconclusive); null without --gate.
	Gate   *string         `json:"gate"`
	Pacing benchrun.Report `json:"pacing"`
}

// benchDocConfig is what was benchmarked and how.
type benchDocConfig struct {
	Target             string               `json:"target"`
	BaseURL            string               `json:"base_url"`
	Model              string               `json:"model"`
	API                string               `json:"api"`
	Backend            string               `json:"backend"`
	Stream             bool                 `json:"stream"`
	Strategy           string               `json:"strategy"`
	Rate               *float64             `json:"rate"`
	Streams            *int                 `json:"streams"`
	MaxConcurrency     int                  `json:"max_concurrency"`
	Confidence         *float64             `json:"confidence"`
	WarmupSeconds      float64              `json:"warmup_seconds"`
	WarmupRequests     *int                 `json:"warmup_requests"`
	CooldownSeconds    float64              `json:"cooldown_seconds"`
	CooldownRequests   *int                 `json:"cooldown_requests"`
	MaxDurationSeconds *float64             `json:"max_duration_seconds"`
	MaxRequests        *int                 `json:"max_requests"`
	Objectives         []benchDocObjectives `json:"objectives"`
}

// benchDocObjectives is one objective set: thresholds in seconds.
type benchDocObjectives struct {
	Name       string             `json:"name"`
	Thresholds map[string]float64 `json:"thresholds_seconds"`
	Attainment float64            `json:"target_attainment"`
}

// benchDocSLO is one objective set's result over the measurement window.
type benchDocSLO struct {
	Objective         string         `json:"objective"`
	TargetAttainment  float64        `json:"target_attainment"`
	Evaluated         int64          `json:"evaluated"`
	Conforming        int64          `json:"conforming"`
	Attainment        *float64       `json:"attainment"`
	AttainmentCI      *benchInterval `json:"attainment_ci"`
	Verdict           string         `json:"verdict"`
	RequestsToResolve *int64         `json:"requests_to_resolve"`
	Goodput           *float64       `json:"goodput_requests_per_second"`
	OutputGoodput     *float64       `json:"goodput_output_tokens_per_second"`
}

// benchInterval is a confidence interval, as in the status API.
type benchInterval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// benchJSON is the report of results (and of the goodput search, when not
// nil) as one indented JSON document ending in a newline.
func benchJSON(results []*benchResult, search *goodputSearch) ([]byte, error) {
	doc := benchDoc{Schema: benchSchema, Profile: results[0].profile}
	for _, r := range results {
		item, err := r.docItem()
		if err != nil {
			return nil, err
		}
		doc.Benchmarks = append(doc.Benchmarks, item)
	}
	if search != nil {
		doc.Goodput = search.doc()
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("could not encode report: %w", err)
	}
	return append(b, '\n'), nil
}

// docItem is the benchmark's member of the report.
func (r *benchResult) docItem() (benchDocItem, error) {
	var win bytes.Buffer
	if err := exporter.WriteWindowDocument(&win, r.snap, r.realtime, ""); err != nil {
		return benchDocItem{}, err
	}
	item := benchDocItem{
		Profile: r.profile, Label: r.label, Config: r.docConfig(), StopReason: r.stop, Interrupted: r.stop == benchStopInterrupted,
		RunStart: r.start.UTC().Format(time.RFC3339Nano), RunEnd: r.end.UTC().Format(time.RFC3339Nano),
		Window: win.Bytes(), RateDistributions: r.rates(), SLO: r.docSLO(), Pacing: r.pacing,
	}
	if r.plan.flags.gate {
		outcome, _ := r.gateResult()
		g := outcome.String()
		item.Gate = &g
	}
	if r.snap.Measuring {
		from, to := r.snap.Start.UTC().Format(time.RFC3339Nano), r.snap.End.UTC().Format(time.RFC3339Nano)
		item.MeasureFrom, item.MeasureTo = &from, &to
	}
	return item, nil
}

// docConfig is the benchmark's configuration.
func (r *benchResult) docConfig() benchDocConfig {
	t, p := &r.plan.target, r.plan
	c := benchDocConfig{
		Target: t.Name, BaseURL: t.BaseURL, Model: t.Model, API: t.API, Backend: t.Backend, Stream: *t.Stream,
		Strategy: t.Schedule.Strategy, MaxConcurrency: t.Schedule.MaxConcurrency, WarmupSeconds: p.warmup.Seconds(),
		Objectives: []benchDocObjectives{},
	}
	switch t.Schedule.Strategy {
	case config.StrategyConstant, config.StrategyPoisson:
		c.Rate = &t.Schedule.Rate
	case config.StrategyConcurrent:
		c.Streams = &t.Schedule.Streams
	}
	if p.confidence > 0 {
		c.Confidence = &p.confidence
	}
	c.CooldownSeconds = p.cooldown.d.Seconds()
	if p.warmupN > 0 {
		c.WarmupRequests = &p.warmupN
	}
	if p.cooldown.count {
		c.CooldownRequests = &p.cooldown.n
	}
	if p.flags.maxDuration > 0 {
		d := p.flags.maxDuration.Seconds()
		c.MaxDurationSeconds = &d
	}
	if p.flags.maxRequests > 0 {
		c.MaxRequests = &p.flags.maxRequests
	}
	for _, o := range p.objectives {
		th := map[string]float64{}
		for _, x := range o.Thresholds {
			th[string(x.Quantity)] = x.Max.Seconds()
		}
		c.Objectives = append(c.Objectives, benchDocObjectives{Name: o.Name, Thresholds: th, Attainment: o.Attainment})
	}
	return c
}

// docSLO is every objective set's result.
func (r *benchResult) docSLO() []benchDocSLO {
	out := []benchDocSLO{}
	for _, a := range r.snap.Objectives {
		s := benchDocSLO{
			Objective: a.Objective, TargetAttainment: a.Target, Evaluated: a.Evaluated, Conforming: a.Conforming,
			Attainment: a.Ratio, Verdict: a.Verdict.String(),
			Goodput: a.Goodput, OutputGoodput: a.OutputTokenGoodput,
		}
		if a.CI != nil {
			s.AttainmentCI = &benchInterval{Lower: a.CI.Lo, Upper: a.CI.Hi}
		}
		if a.Verdict == slo.Inconclusive {
			if n, ok := slo.RequestsToResolve(a.Conforming, a.Evaluated, a.Target, r.snap.Confidence); ok {
				s.RequestsToResolve = &n
			}
		}
		out = append(out, s)
	}
	return out
}

// benchConsoleMetrics are the rows of the console's latency table.
var benchConsoleMetrics = []struct {
	metric window.Metric
	title  string
}{
	{window.RequestLatency, "request latency"}, {window.TTFT, "TTFT"}, {window.TTFOT, "TTFOT"},
	{window.ITL, "ITL"}, {window.TPOT, "TPOT"},
	{window.TimeToLastRoundTrip, "time to last round trip"}, {window.AverageRTT, "average RTT"},
}

// writeConsole prints the report for a person, in at most 120 columns.
func (r *benchResult) writeConsole(w io.Writer) {
	s, c := r.snap, r.docConfig()
	fmt.Fprintf(w, "llmprober bench: target %s (%s %s, %s), model %s, %s\n",
		c.Target, streamText(c.Stream), c.API, r.label, c.Model, c.BaseURL)
	fmt.Fprintf(w, "stopped: %s after %.3f s; ", r.stop, r.end.Sub(r.start).Seconds())
	if !s.Measuring {
		fmt.Fprintln(w, "the run ended before its warmup did: nothing measured")
		return
	}
	fmt.Fprintf(w, "measurement window %.3f s after a warmup of %s\n", s.Length().Seconds(), r.plan.boundsText())
	fmt.Fprintf(w, "requests: %d successful, %d errored, %d incomplete\n\n", s.Requests.Successful, s.Requests.Errored, s.Requests.Incomplete)
	r.writeLatencyTable(w)
	fmt.Fprintf(w, "\ntokens: prompt %s, output %s (successful requests)\n",
		tokensText(s.Summary(window.PromptTokens).Successful), tokensText(s.Summary(window.OutputTokens).Successful))
	fmt.Fprintf(w, "throughput: %s requests/s, %s output tokens/s, %s total tokens/s, concurrency %s\n",
		floatText(s.RequestRate.Successful, 3), floatText(s.OutputTokenRate.All, 1), floatText(s.TotalTokenRate.All, 1),
		floatText(s.Concurrency, 2))
	for _, o := range r.docSLO() {
		fmt.Fprintln(w, sloText(o))
	}
	p := r.pacing
	fmt.Fprintf(w, "pacing: %d scheduled, %d sent, %d dropped; CPU %.3f s; peak RSS %.1f MiB\n",
		p.Scheduled, p.Sent, p.Dropped, p.CPUSeconds, float64(p.PeakRSSBytes)/(1<<20))
	if p.DispatchDelay.Count > 0 {
		fmt.Fprintf(w, "dispatch delay: %s\n", p.DispatchDelay.Text())
	}
}

// writeLatencyTable prints mean ± half-width, median, p90, p95 and p99 of
// each duration of the successful requests, in milliseconds.
func (r *benchResult) writeLatencyTable(w io.Writer) {
	fmt.Fprintf(w, "%-24s %20s %12s %12s %12s %12s %8s\n", "successful (ms)", "mean", "median", "p90", "p95", "p99", "count")
	for _, row := range benchConsoleMetrics {
		sum := r.snap.Summary(row.metric).Successful
		if sum.Count == 0 && (row.metric == window.TimeToLastRoundTrip || row.metric == window.AverageRTT) {
			continue
		}
		cells := []string{meanMs(sum)}
		for _, l := range []stats.Level{stats.P50, stats.P90, stats.P95, stats.P99} {
			cells = append(cells, percentileMs(sum, l, r.snap.Confidence))
		}
		count := strconv.FormatInt(sum.Count, 10)
		if sum.Weighted {
			count += " tok" // token-weighted: the count is the summed weight
		}
		fmt.Fprintf(w, "%-24s %20s %12s %12s %12s %12s %8s\n", row.title, cells[0], cells[1], cells[2], cells[3], cells[4], count)
	}
	if r.snap.Confidence > 0 {
		fmt.Fprintf(w, "mean ± half-width of its %s %% interval; * a percentile the sample cannot bound at that level\n",
			strconv.FormatFloat(100*r.snap.Confidence, 'f', -1, 64))
	}
	fmt.Fprintln(w, "ITL and TPOT are token-weighted: their count is the summed weight (tokens), and they carry no interval")
}

// meanMs is "80.5 ± 3.9" (seconds shown as milliseconds), "80.5" without
// an interval, or "—".
func meanMs(s window.Summary) string { return meanIn(s, 1000) }

// meanIn is meanMs with the values multiplied by factor.
func meanIn(s window.Summary, factor float64) string {
	if s.Mean == nil {
		return "—"
	}
	text := strconv.FormatFloat(factor**s.Mean, 'f', 1, 64)
	if s.MeanCI != nil {
		text += " ± " + strconv.FormatFloat(factor*(s.MeanCI.Hi-s.MeanCI.Lo)/2, 'f', 1, 64)
	}
	return text
}

// percentileMs is the value at l, with * when intervals are on but the
// sample cannot bound it (never for a weighted metric, which has none).
func percentileMs(s window.Summary, l stats.Level, confidence float64) string {
	for _, p := range s.Percentiles {
		if p.Level != l || p.Value == nil {
			continue
		}
		text := msFixed(*p.Value)
		if p.CI == nil && confidence > 0 && !s.Weighted {
			text += "*"
		}
		return text
	}
	return "—"
}

// msFixed shows seconds as milliseconds with one decimal.
func msFixed(seconds float64) string { return strconv.FormatFloat(1000*seconds, 'f', 1, 64) }

// floatText shows *v with digits decimals, or "—".
func floatText(v *float64, digits int) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', digits, 64)
}

// tokensText is "320 (mean 32.0 ± 0.0)".
func tokensText(s window.Summary) string {
	if s.Sum == nil {
		return "—"
	}
	return strconv.FormatFloat(*s.Sum, 'f', -1, 64) + " (mean " + meanIn(s, 1) + ")"
}

// sloText is one objective set's line: its counts, interval, verdict and,
// when inconclusive, the requests that would resolve it.
func sloText(o benchDocSLO) string {
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) }
	text := fmt.Sprintf("SLO %s (target %s%%): %d of %d conforming", o.Objective, strconv.FormatFloat(100*o.TargetAttainment, 'f', -1, 64),
		o.Conforming, o.Evaluated)
	if o.Attainment != nil {
		text += ", attainment " + pct(*o.Attainment) + "%"
	}
	if o.AttainmentCI != nil {
		text += " [" + pct(o.AttainmentCI.Lower) + ", " + pct(o.AttainmentCI.Upper) + "]"
	}
	text += ", goodput " + floatText(o.Goodput, 3) + "/s: " + o.Verdict
	if o.RequestsToResolve != nil {
		text += fmt.Sprintf("\n    about %d requests at this attainment would resolve it", *o.RequestsToResolve)
	}
	return text
}

// streamText is "streamed" or "non-streamed".
func streamText(stream bool) string {
	if stream {
		return "streamed"
	}
	return "non-streamed"
}
