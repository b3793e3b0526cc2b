package window

import "github.com/llmprober/llmprober/slo/stats"

// RateSeries are a window's rates over n equal consecutive intervals, the
// distributions of a finite run's rates over time. Each value is per
// second of its interval, and because the intervals have one length the
// mean of each series is the window's own figure: Requests averages to
// RequestRate.All, OutputTokens to OutputTokenRate.All, TotalTokens to
// TotalTokenRate.All and Concurrency to Concurrency.
type RateSeries struct {
	// IntervalSeconds is the length of each interval: the window's length
	// ÷ the number of intervals.
	IntervalSeconds float64
	// Requests counts the requests that ended in each interval (of every
	// status), per second; a request counted that ended after the window
	// (see Store.SnapshotSpan) counts in the last.
	Requests []float64
	// OutputTokens and TotalTokens (prompt and output) are the tokens of
	// each interval by token event time, as for the window's token rates,
	// per second.
	OutputTokens, TotalTokens []float64
	// Concurrency is the time-weighted mean number of requests in flight
	// over each interval.
	Concurrency []float64
}

// RateSeries returns the window's rates over n equal intervals, by the
// window's own rules (requests by end, tokens by event time, concurrency
// over each request's lifetime); ok is false before the measure start, for
// an approximate window (whose records are a sample) and for n < 1.
func (s *Snapshot) RateSeries(n int) (RateSeries, bool) {
	if !s.Measuring || s.Approximate || n < 1 {
		return RateSeries{}, false
	}
	win := stats.Window{Start: seconds(s.startOff), End: seconds(s.endOff)}
	if win.Length() == 0 {
		return RateSeries{}, false
	}
	var ends []float64
	var tokens []stats.TokenSpan
	spans := make([]stats.Span, 0, len(s.running))
	a := &accumulator{start: s.startOff, now: s.endOff, horizon: s.horizonOff}
	for _, p := range s.parts {
		for i := range p.entries {
			e := &p.entries[i]
			if !a.counts(e) {
				continue
			}
			ends = append(ends, seconds(min(e.end, s.endOff)))
			output, prompt := e.tokens()
			from, to := e.tokenSpan()
			tokens = append(tokens, stats.TokenSpan{FirstToken: seconds(from), LastToken: seconds(to), OutputTokens: output, PromptTokens: prompt})
			from, to = e.busySpan()
			spans = append(spans, stats.Span{Start: seconds(from), End: seconds(to)})
		}
	}
	for _, t := range s.running {
		spans = append(spans, stats.Span{Start: seconds(int64(t.Sub(s.origin))), End: win.End})
	}
	width := win.Length() / float64(n)
	perSecond := func(xs []float64) []float64 {
		for i := range xs {
			xs[i] /= width
		}
		return xs
	}
	out := RateSeries{IntervalSeconds: width, Requests: perSecond(stats.CountsByInterval(ends, win, n))}
	output, prompt := stats.TokensByInterval(tokens, win, n)
	total := make([]float64, n)
	for i := range total {
		total[i] = output[i] + prompt[i]
	}
	out.OutputTokens, out.TotalTokens = perSecond(output), perSecond(total)
	out.Concurrency = stats.ConcurrencyByInterval(spans, win, n)
	return out, true
}
