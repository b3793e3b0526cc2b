package main

import (
	"math"

	"github.com/llmprober/llmprober/slo/stats"
)

// benchRateInterval is the longest interval of the rate distributions.
const benchRateInterval = 1.0 // seconds

// benchRates are the rate distributions of a benchmark: its measurement
// window split into ⌈length ÷ 1 s⌉ equal intervals (each at most 1 s), the
// rates of each interval, and their summaries. Because the intervals have
// one length, each mean equals the window's total ÷ its length.
type benchRates struct {
	IntervalSeconds float64         `json:"interval_seconds"`
	Intervals       int             `json:"intervals"`
	Requests        benchRateSeries `json:"requests_per_second"`
	OutputTokens    benchRateSeries `json:"output_tokens_per_second"`
	TotalTokens     benchRateSeries `json:"total_tokens_per_second"`
	Concurrency     benchRateSeries `json:"concurrency"`
}

// benchRateSeries is one rate's values per interval and their summary
// (no intervals: rates are not once-per-request observations).
type benchRateSeries struct {
	Mean        *float64           `json:"mean"`
	Median      *float64           `json:"median"`
	StdDev      *float64           `json:"std_dev"`
	Min         *float64           `json:"min"`
	Max         *float64           `json:"max"`
	Percentiles map[string]float64 `json:"percentiles"`
	Values      []float64          `json:"values"`
}

// rates returns the benchmark's rate distributions; nil when nothing was
// measured.
func (r *benchResult) rates() *benchRates {
	if !r.snap.Measuring {
		return nil
	}
	n := max(1, int(math.Ceil(r.snap.Length().Seconds()/benchRateInterval)))
	rs, ok := r.snap.RateSeries(n)
	if !ok {
		return nil
	}
	return &benchRates{IntervalSeconds: rs.IntervalSeconds, Intervals: n, Requests: rateSeries(rs.Requests),
		OutputTokens: rateSeries(rs.OutputTokens), TotalTokens: rateSeries(rs.TotalTokens), Concurrency: rateSeries(rs.Concurrency)}
}

// rateSeries summarizes one series.
func rateSeries(values []float64) benchRateSeries {
	s := stats.Summarize(values, 0)
	out := benchRateSeries{Mean: s.Mean, Median: s.Median, StdDev: s.StdDev, Min: s.Min, Max: s.Max,
		Percentiles: map[string]float64{}, Values: values}
	for _, p := range s.Percentiles {
		if p.Value != nil {
			out.Percentiles[p.Level.Key()] = *p.Value
		}
	}
	return out
}
