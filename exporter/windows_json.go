package exporter

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// The JSON documents of the status API; docs/api.md ("JSON status API")
// describes them. Absent figures are null, never 0.

// apiTargets is GET /api/v1/targets.
type apiTargets struct {
	Confidence *float64    `json:"confidence"`
	Targets    []apiTarget `json:"targets"`
}

// apiTarget is one target and the main figures of its windows.
type apiTarget struct {
	Name         string       `json:"name"`
	Model        string       `json:"model"`
	API          string       `json:"api"`
	Stream       bool         `json:"stream"`
	State        string       `json:"state"`
	Waited       *float64     `json:"waited_seconds"`
	Requests     *apiOutcomes `json:"requests"`
	MeasureStart *string      `json:"measure_start"`
	Probes       *apiProbes   `json:"probes"`
	Windows      []apiWindow  `json:"windows"`
}

// apiOutcomes counts a target's finished requests by outcome since start.
type apiOutcomes struct {
	Successful uint64 `json:"successful"`
	Errored    uint64 `json:"errored"`
	Incomplete uint64 `json:"incomplete"`
}

// apiWindow is one window's figures: GET /api/v1/targets/{name}/windows/{window}.
type apiWindow struct {
	Target                string                `json:"target"`
	Window                string                `json:"window"`
	WindowSeconds         float64               `json:"window_seconds"`
	Start                 *string               `json:"start"`
	End                   *string               `json:"end"`
	LengthSeconds         *float64              `json:"length_seconds"`
	Measuring             bool                  `json:"measuring"`
	Approximate           bool                  `json:"approximate"`
	Confidence            *float64              `json:"confidence"`
	Requests              *apiStatuses[int64]   `json:"requests"`
	InFlight              int                   `json:"in_flight"`
	RequestsPerSecond     apiStatuses[*float64] `json:"requests_per_second"`
	OutputTokens          *apiStatuses[float64] `json:"output_tokens"`
	PromptTokens          *apiStatuses[float64] `json:"prompt_tokens"`
	OutputTokensPerSecond apiStatuses[*float64] `json:"output_tokens_per_second"`
	TotalTokensPerSecond  apiStatuses[*float64] `json:"total_tokens_per_second"`
	Concurrency           *float64              `json:"concurrency"`
	Probes                *apiProbes            `json:"probes"`
	Summaries             orderedObject         `json:"summaries"`
	Objectives            orderedObject         `json:"objectives"`
	Records               *recordsRef           `json:"records,omitempty"`
}

// apiObjective is one objective set's attainment, verdict and goodput in a
// window; the counts and the verdict are null before measuring began.
type apiObjective struct {
	TargetAttainment             float64      `json:"target_attainment"`
	Evaluated                    *int64       `json:"evaluated"`
	Conforming                   *int64       `json:"conforming"`
	Attainment                   *float64     `json:"attainment"`
	AttainmentCI                 *apiInterval `json:"attainment_ci"`
	Verdict                      *string      `json:"verdict"`
	GoodputRequestsPerSecond     *float64     `json:"goodput_requests_per_second"`
	GoodputOutputTokensPerSecond *float64     `json:"goodput_output_tokens_per_second"`
}

// apiStatuses is one figure per status and for all of them.
type apiStatuses[T any] struct {
	Successful T `json:"successful"`
	Errored    T `json:"errored"`
	Incomplete T `json:"incomplete"`
	All        T `json:"all"`
}

// apiSummaryStatuses holds a metric's summaries; the target list carries
// the successful one only.
type apiSummaryStatuses struct {
	Successful *apiSummary `json:"successful"`
	Errored    *apiSummary `json:"errored,omitempty"`
	Incomplete *apiSummary `json:"incomplete,omitempty"`
	All        *apiSummary `json:"all,omitempty"`
}

// apiSummary is one distribution summary.
type apiSummary struct {
	Unit        string        `json:"unit"`
	Weighted    bool          `json:"weighted"`
	Approximate bool          `json:"approximate"`
	Count       int64         `json:"count"`
	Sum         *float64      `json:"sum"`
	Mean        *float64      `json:"mean"`
	MeanCI      *apiInterval  `json:"mean_ci"`
	Median      *float64      `json:"median"`
	Mode        *float64      `json:"mode"`
	Variance    *float64      `json:"variance"`
	StdDev      *float64      `json:"std_dev"`
	Min         *float64      `json:"min"`
	Max         *float64      `json:"max"`
	Percentiles orderedObject `json:"percentiles"`
}

// apiPercentile is one percentile with its interval.
type apiPercentile struct {
	Value *float64     `json:"value"`
	CI    *apiInterval `json:"ci"`
}

// apiInterval is a confidence interval.
type apiInterval struct {
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// apiRecord is one request with every instant and derived quantity.
type apiRecord struct {
	Seq                 uint64          `json:"seq"`
	Outcome             string          `json:"outcome"`
	ErrorType           *string         `json:"error_type"`
	ErrorCode           probe.ErrorCode `json:"error_code"` // null when none
	HTTPStatus          *int            `json:"http_status"`
	Stream              bool            `json:"stream"`
	Weight              float64         `json:"weight"`
	TargetedStart       *string         `json:"targeted_start"`
	RequestStart        *string         `json:"request_start"`
	FirstToken          *string         `json:"first_token"`
	FirstOutputToken    *string         `json:"first_output_token"`
	LastToken           *string         `json:"last_token"`
	End                 *string         `json:"end"`
	PromptTokens        *int            `json:"prompt_tokens"`
	PromptTokensFrom    *string         `json:"prompt_tokens_from"`
	OutputTokens        *int            `json:"output_tokens"`
	OutputTokensFrom    *string         `json:"output_tokens_from"`
	UsageInconsistent   bool            `json:"usage_inconsistent"`
	TokensClamped       bool            `json:"tokens_clamped"`
	StreamingIterations *int            `json:"streaming_iterations"`
	Values              orderedObject   `json:"values"`
	Included            []string        `json:"included"`
}

// orderedObject is a JSON object whose keys keep their order.
type orderedObject []keyValue

type keyValue struct {
	key   string
	value any
}

// MarshalJSON writes the members in order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// timeJSON formats t in RFC 3339 with nanoseconds, UTC; nil when zero.
func timeJSON(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// finite returns p, or nil when p is nil or not a finite number (which
// JSON cannot carry).
func finite(p *float64) *float64 {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	return p
}

// confidenceJSON is the confidence level, nil when intervals are off.
func confidenceJSON(c float64) *float64 {
	if c == 0 {
		return nil
	}
	return &c
}

// newAPIWindow converts a snapshot: with allStatuses the summaries of every
// status, else of successful requests only; with rs not nil a reference to
// the records, which rs streams when the document is written; without
// roundTrips (a target that is not a realtime WebSocket one) the
// round-trip metrics are left out of the summaries and the records.
// Before the measure start the bounds, length, counts and token totals are
// null; in_flight counts the requests running (during the warmup too).
func newAPIWindow(s *window.Snapshot, allStatuses bool, rs *recordStreams, roundTrips bool) apiWindow {
	out := apiWindow{
		Target: s.Target, Window: s.Name(), WindowSeconds: s.Window.Seconds(),
		Measuring: s.Measuring, Approximate: s.Approximate, Confidence: confidenceJSON(s.Confidence),
		InFlight:              s.InFlight,
		RequestsPerSecond:     finiteStatuses(s.RequestRate),
		OutputTokensPerSecond: finiteStatuses(s.OutputTokenRate),
		TotalTokensPerSecond:  finiteStatuses(s.TotalTokenRate),
		Concurrency:           finite(s.Concurrency),
		Probes:                newAPIWindowProbes(s),
	}
	if s.Measuring {
		length := s.Length().Seconds()
		requests := apiStatuses[int64](s.Requests)
		output, prompt := apiStatuses[float64](s.OutputTokens), apiStatuses[float64](s.PromptTokens)
		out.Start, out.End, out.LengthSeconds = timeJSON(s.Start), timeJSON(s.End), &length
		out.Requests, out.OutputTokens, out.PromptTokens = &requests, &output, &prompt
	}
	for _, m := range apiMetrics(roundTrips) {
		b := s.Summary(m)
		ss := apiSummaryStatuses{Successful: newAPISummary(m, b.Successful)}
		if allStatuses {
			ss.Errored, ss.Incomplete, ss.All = newAPISummary(m, b.Errored), newAPISummary(m, b.Incomplete), newAPISummary(m, b.All)
		}
		out.Summaries = append(out.Summaries, keyValue{m.String(), ss})
	}
	out.Objectives = newAPIObjectives(s)
	if rs != nil {
		out.Records = rs.add(s, roundTrips)
	}
	return out
}

// apiMetrics returns the metrics the API shows: every one, or with
// roundTrips false all but the WebSocket round-trip metrics, which cannot
// apply to the target.
func apiMetrics(roundTrips bool) []window.Metric {
	ms := window.Metrics()
	if roundTrips {
		return ms
	}
	return slices.DeleteFunc(ms, func(m window.Metric) bool {
		return m == window.TimeToLastRoundTrip || m == window.AverageRTT
	})
}

// newAPIObjectives converts the attainments of a snapshot, keyed by
// objective set name in configured order.
func newAPIObjectives(s *window.Snapshot) orderedObject {
	out := orderedObject{}
	for _, a := range s.Objectives {
		o := apiObjective{
			TargetAttainment: a.Target, Attainment: finite(a.Ratio), AttainmentCI: intervalJSON(a.CI),
			GoodputRequestsPerSecond: finite(a.Goodput), GoodputOutputTokensPerSecond: finite(a.OutputTokenGoodput),
		}
		if s.Measuring {
			evaluated, conforming := a.Evaluated, a.Conforming
			verdict := a.Verdict.String()
			o.Evaluated, o.Conforming, o.Verdict = &evaluated, &conforming, &verdict
		}
		out = append(out, keyValue{a.Objective, o})
	}
	return out
}

// finiteStatuses applies finite to each status.
func finiteStatuses(b stats.ByStatus[*float64]) apiStatuses[*float64] {
	return apiStatuses[*float64](stats.MapByStatus(b, finite))
}

// newAPISummary converts a summary.
func newAPISummary(m window.Metric, s window.Summary) *apiSummary {
	out := &apiSummary{
		Unit: m.Unit(), Weighted: s.Weighted, Approximate: s.Approximate, Count: s.Count,
		Sum: finite(s.Sum), Mean: finite(s.Mean), MeanCI: intervalJSON(s.MeanCI), Median: finite(s.Median),
		Mode: finite(s.Mode), Variance: finite(s.Variance), StdDev: finite(s.StdDev), Min: finite(s.Min), Max: finite(s.Max),
		Percentiles: orderedObject{},
	}
	for _, p := range s.Percentiles {
		out.Percentiles = append(out.Percentiles, keyValue{p.Level.Key(), apiPercentile{Value: finite(p.Value), CI: intervalJSON(p.CI)}})
	}
	return out
}

// intervalJSON converts an interval; nil when absent or not finite.
func intervalJSON(iv *stats.Interval) *apiInterval {
	if iv == nil || finite(&iv.Lo) == nil || finite(&iv.Hi) == nil {
		return nil
	}
	return &apiInterval{Lower: iv.Lo, Upper: iv.Hi}
}

// newAPIRecord converts one record.
func newAPIRecord(r *window.Record, roundTrips bool) apiRecord {
	q := &r.Request
	out := apiRecord{
		Seq: q.Seq, Outcome: string(q.Outcome), Stream: q.Stream, Weight: r.Weight,
		TargetedStart: timeJSON(q.TargetedStart), RequestStart: timeJSON(q.RequestStart),
		FirstToken: timeJSON(q.FirstToken), FirstOutputToken: timeJSON(q.FirstOutputToken),
		LastToken: timeJSON(q.LastToken), End: timeJSON(q.End),
		Values: orderedObject{}, Included: []string{},
	}
	if q.ErrorType != probe.ErrorNone {
		e := string(q.ErrorType)
		out.ErrorType = &e
	}
	out.ErrorCode = q.ErrorCode
	if q.HTTPStatus != 0 {
		out.HTTPStatus = &q.HTTPStatus
	}
	out.UsageInconsistent, out.TokensClamped = q.UsageInconsistent, q.TokensClamped
	out.PromptTokens, out.PromptTokensFrom = tokenJSON(q.PromptTokens, q.PromptTokensFrom)
	out.OutputTokens, out.OutputTokensFrom = tokenJSON(q.OutputTokens, q.OutputTokensFrom)
	if q.Stream {
		out.StreamingIterations = &q.Iterations
	}
	for _, m := range apiMetrics(roundTrips) {
		var v *float64
		if x, _, ok := r.Value(m); ok {
			v = finite(&x)
		}
		out.Values = append(out.Values, keyValue{m.String(), v})
		if r.Included(m) {
			out.Included = append(out.Included, m.String())
		}
	}
	return out
}

// tokenJSON returns a token count and its source, nil when unknown.
func tokenJSON(n int, from probe.TokenSource) (*int, *string) {
	if from == probe.TokensUnknown {
		return nil, nil
	}
	s := string(from)
	return &n, &s
}
