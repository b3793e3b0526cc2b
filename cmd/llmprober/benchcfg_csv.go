package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// benchCSVStats are the figures of each metric's columns, in order.
var benchCSVStats = []string{"count", "mean", "median", "std_dev", "min", "max", "p50", "p90", "p95", "p99", "p99.9"}

// benchCSVMetrics returns the metrics the CSV has columns for: every one
// but the schedule quantities when no benchmark has an arrival schedule
// (scheduled is false), and the round-trip metrics for a target that is not
// a realtime one.
func benchCSVMetrics(t *config.Target, scheduled bool) []window.Metric {
	var out []window.Metric
	closed := !scheduled
	for _, m := range window.Metrics() {
		switch m {
		case window.DispatchDelay, window.ScheduledLatency:
			if closed {
				continue
			}
		case window.TimeToLastRoundTrip, window.AverageRTT:
			if t.Backend != config.BackendWebSocket {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}

// benchCSVColumn is one column: its name and its value in a benchmark.
type benchCSVColumn struct {
	name  string
	value func(r *benchResult) string
}

// benchCSVColumns returns the columns of target t's benchmarks, in their
// stable order: the run, the requests and rates, each metric's figures of
// the successful requests, each objective set, then the intervals and the
// confidence level (at the end, so that the columns before them keep
// their positions whether or not intervals are on).
func benchCSVColumns(t *config.Target, objectives []string, scheduled bool) []benchCSVColumn {
	cols := []benchCSVColumn{
		{"target", func(r *benchResult) string { return r.plan.target.Name }},
		{"profile", func(r *benchResult) string { return r.profile }},
		{"label", func(r *benchResult) string { return r.label }},
		{"strategy", func(r *benchResult) string { return r.plan.target.Schedule.Strategy }},
		{"rate", func(r *benchResult) string { return csvPtr(r.docConfig().Rate) }},
		{"streams", func(r *benchResult) string {
			if s := r.docConfig().Streams; s != nil {
				return strconv.Itoa(*s)
			}
			return ""
		}},
		{"stop_reason", func(r *benchResult) string { return r.stop }},
		{"measure_seconds", func(r *benchResult) string { return csvFloat(r.snap.Length().Seconds(), r.snap.Measuring) }},
		{"requests_successful", func(r *benchResult) string { return strconv.FormatInt(r.snap.Requests.Successful, 10) }},
		{"requests_errored", func(r *benchResult) string { return strconv.FormatInt(r.snap.Requests.Errored, 10) }},
		{"requests_incomplete", func(r *benchResult) string { return strconv.FormatInt(r.snap.Requests.Incomplete, 10) }},
		{"requests_per_second", func(r *benchResult) string { return csvPtr(r.snap.RequestRate.Successful) }},
		{"output_tokens_per_second", func(r *benchResult) string { return csvPtr(r.snap.OutputTokenRate.All) }},
		{"total_tokens_per_second", func(r *benchResult) string { return csvPtr(r.snap.TotalTokenRate.All) }},
		{"concurrency", func(r *benchResult) string { return csvPtr(r.snap.Concurrency) }},
	}
	metrics := benchCSVMetrics(t, scheduled)
	for _, m := range metrics {
		for _, st := range benchCSVStats {
			cols = append(cols, benchCSVColumn{m.String() + "_" + st, func(r *benchResult) string {
				return csvStat(r.snap.Summary(m).Successful, st)
			}})
		}
	}
	for i, name := range objectives {
		obj := func(r *benchResult) *benchDocSLO { return &r.docSLO()[i] }
		cols = append(cols,
			benchCSVColumn{"slo_" + name + "_evaluated", func(r *benchResult) string { return strconv.FormatInt(obj(r).Evaluated, 10) }},
			benchCSVColumn{"slo_" + name + "_conforming", func(r *benchResult) string { return strconv.FormatInt(obj(r).Conforming, 10) }},
			benchCSVColumn{"slo_" + name + "_attainment", func(r *benchResult) string { return csvPtr(obj(r).Attainment) }},
			benchCSVColumn{"slo_" + name + "_goodput", func(r *benchResult) string { return csvPtr(obj(r).Goodput) }},
			benchCSVColumn{"slo_" + name + "_verdict", func(r *benchResult) string { return obj(r).Verdict }},
		)
	}
	for _, m := range metrics {
		if m.Weighted() {
			continue
		}
		cols = append(cols,
			benchCSVColumn{m.String() + "_mean_ci", func(r *benchResult) string { return csvInterval(r.snap.Summary(m).Successful.MeanCI) }},
			benchCSVColumn{m.String() + "_percentile_cis", func(r *benchResult) string { return csvPercentileCIs(r.snap.Summary(m).Successful) }})
	}
	for i, name := range objectives {
		cols = append(cols, benchCSVColumn{"slo_" + name + "_attainment_ci", func(r *benchResult) string {
			if ci := r.docSLO()[i].AttainmentCI; ci != nil {
				return csvInterval(&stats.Interval{Lo: ci.Lower, Hi: ci.Upper})
			}
			return ""
		}})
	}
	return append(cols, benchCSVColumn{"confidence", func(r *benchResult) string {
		return csvFloat(r.snap.Confidence, r.snap.Confidence > 0)
	}})
}

// writeBenchCSV writes the header and one row per benchmark; the schedule
// columns appear when any benchmark has an arrival schedule (empty in the
// rows of those that have none).
func writeBenchCSV(w io.Writer, results []*benchResult) error {
	if len(results) == 0 {
		return nil
	}
	var names []string
	for _, o := range results[0].plan.objectives {
		names = append(names, o.Name)
	}
	scheduled := false
	for _, r := range results {
		scheduled = scheduled || config.HasArrivalSchedule(r.plan.target.Schedule.Strategy)
	}
	cols := benchCSVColumns(&results[0].plan.target, names, scheduled)
	cw := csv.NewWriter(w)
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("could not write CSV: %w", err)
	}
	for _, r := range results {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.value(r)
		}
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("could not write CSV: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvStat is one figure of a summary; empty when absent.
func csvStat(s window.Summary, stat string) string {
	switch stat {
	case "count":
		return strconv.FormatInt(s.Count, 10)
	case "mean":
		return csvPtr(s.Mean)
	case "median":
		return csvPtr(s.Median)
	case "std_dev":
		return csvPtr(s.StdDev)
	case "min":
		return csvPtr(s.Min)
	case "max":
		return csvPtr(s.Max)
	}
	for _, p := range s.Percentiles {
		if p.Level.Key() == stat {
			return csvPtr(p.Value)
		}
	}
	return ""
}

// csvPtr is *v in the shortest exact form, empty when nil.
func csvPtr(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// csvFloat is v, or empty when not ok.
func csvFloat(v float64, ok bool) string {
	if !ok {
		return ""
	}
	return csvPtr(&v)
}

// csvInterval is "lo;hi", empty when absent.
func csvInterval(iv *stats.Interval) string {
	if iv == nil {
		return ""
	}
	return csvPtr(&iv.Lo) + ";" + csvPtr(&iv.Hi)
}

// csvPercentileCIs is "p50=lo;hi p90=lo;hi …" over the percentiles with an
// interval, empty when none has.
func csvPercentileCIs(s window.Summary) string {
	var parts []string
	for _, p := range s.Percentiles {
		if p.CI != nil {
			parts = append(parts, p.Level.Key()+"="+csvInterval(p.CI))
		}
	}
	return strings.Join(parts, " ")
}
