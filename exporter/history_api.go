package exporter

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// apiHistory is GET /api/v1/targets/{name}/history: the target's
// fixed-interval aggregates, one array element per point, oldest first.
type apiHistory struct {
	Target           string        `json:"target"`
	IntervalSeconds  float64       `json:"interval_seconds"`
	RetentionSeconds float64       `json:"retention_seconds"`
	Times            []float64     `json:"times"`
	Requests         orderedObject `json:"requests"`
	Errors           orderedObject `json:"errors"`
	Probes           orderedObject `json:"probes"`
	OutputTokens     []uint32      `json:"output_tokens"`
	Concurrency      []float64     `json:"concurrency"`
	Quantities       orderedObject `json:"quantities"`
	Approximate      []bool        `json:"approximate"`
	Objectives       orderedObject `json:"objectives"`
}

// apiHistoryObjective is one objective set's counts per point.
type apiHistoryObjective struct {
	TargetAttainment float64  `json:"target_attainment"`
	Evaluated        []uint32 `json:"evaluated"`
	Conforming       []uint32 `json:"conforming"`
}

// getHistory serves GET /api/v1/targets/{name}/history[?span=D].
func (w *Windows) getHistory(r apiRequest) (any, *apiError) {
	name := r.req.PathValue("name")
	wt := w.lookup(name)
	if wt == nil {
		return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("unknown target %q", name)}
	}
	var span time.Duration
	if v := r.req.URL.Query().Get("span"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("span=%q: want a positive Go duration such as 1h", v)}
		}
		span = d
	}
	return newAPIHistory(name, wt.store.History(span), windowMetrics(w.observer.target(name))), nil
}

// newAPIHistory formats h; quantities lists the duration metrics the
// target can have (the others are left out).
func newAPIHistory(name string, h window.History, quantities []window.Metric) apiHistory {
	out := apiHistory{
		Target: name, IntervalSeconds: h.Interval.Seconds(), RetentionSeconds: h.Retention.Seconds(),
		Times: make([]float64, len(h.Times)), OutputTokens: nonNil(h.OutputTokens),
		Concurrency: nonNil(h.Concurrency), Approximate: nonNil(h.Approximate),
	}
	for i, t := range h.Times {
		out.Times[i] = float64(t.UnixNano()) / 1e9
	}
	for i, o := range probe.Outcomes {
		out.Requests = append(out.Requests, keyValue{string(o), nonNil(h.Requests[i])})
	}
	for i, e := range window.HistoryErrorTypes() {
		out.Errors = append(out.Errors, keyValue{string(e), nonNil(h.Errors[i])})
	}
	dropped := orderedObject{}
	for i, d := range probe.DropReasons {
		dropped = append(dropped, keyValue{string(d), nonNil(h.Dropped[i])})
	}
	out.Probes = orderedObject{{"scheduled", nonNil(h.Scheduled)}, {"sent", nonNil(h.Sent)}, {"dropped", dropped}}
	out.Quantities = orderedObject{}
	for q, m := range window.HistoryQuantities {
		if slices.Contains(quantities, m) {
			out.Quantities = append(out.Quantities, keyValue{m.String(), percentileColumns(h.Percentiles[q])})
		}
	}
	out.Objectives = orderedObject{}
	for _, o := range h.Objectives {
		out.Objectives = append(out.Objectives, keyValue{o.Name, apiHistoryObjective{
			TargetAttainment: o.Target, Evaluated: nonNil(o.Evaluated), Conforming: nonNil(o.Conforming)}})
	}
	return out
}

// percentileColumns is {"unit": "seconds", "p50": [...], ...}, null where a
// point has no value.
func percentileColumns(levels [][]float64) orderedObject {
	out := orderedObject{{"unit", window.UnitSeconds}}
	for k, l := range window.HistoryLevels {
		col := make([]*float64, len(levels[k]))
		for i, v := range levels[k] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				col[i] = &levels[k][i]
			}
		}
		out = append(out, keyValue{l.Key(), col})
	}
	return out
}

// nonNil returns s, or an empty slice for nil (so that JSON has [], not null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
