package benchrun

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// Sample is what a benchmark keeps of one sent request.
type Sample struct {
	Outcome   probe.Outcome
	ErrorType probe.ErrorType
	// TargetedStart is the request's slot time; zero without a schedule.
	TargetedStart time.Time
	// Dispatch is the dispatch delay; HasDispatch is false when undefined.
	Dispatch    time.Duration
	HasDispatch bool
	// Latency is the request latency of a successful request; HasLatency is
	// false otherwise.
	Latency    time.Duration
	HasLatency bool
}

// sampleOf keeps what the report needs of rec.
func sampleOf(rec *probe.Record) Sample {
	s := Sample{Outcome: rec.Outcome, ErrorType: rec.ErrorType, TargetedStart: rec.TargetedStart}
	s.Dispatch, s.HasDispatch = rec.DispatchDelay()
	if rec.Outcome == probe.Successful {
		s.Latency, s.HasLatency = rec.Latency()
	}
	return s
}

// Result is the raw outcome of a benchmark run.
type Result struct {
	// Rate is the requested rate, requests per second.
	Rate float64
	// Window is how long requests were sent.
	Window time.Duration
	// Scheduled counts the requests that became due.
	Scheduled int64
	// Dropped counts the due requests never sent, by reason.
	Dropped map[probe.DropReason]int64
	// Samples holds one entry per sent request.
	Samples []Sample
	// CPU is the process's user plus system CPU time spent on the run.
	CPU time.Duration
	// PeakRSS is the process's peak resident set size in bytes; 0 when unknown.
	PeakRSS int64
}

// Delays are the percentiles of a duration sample, in seconds; nil
// when the sample is empty.
type Delays struct {
	Count int64    `json:"count"`
	P50   *float64 `json:"p50_seconds"`
	P99   *float64 `json:"p99_seconds"`
	Max   *float64 `json:"max_seconds"`
}

// Report is the summary of a benchmark run. Rates are in requests per
// second, durations in seconds, memory in bytes.
type Report struct {
	RequestedRate float64 `json:"requested_rate"`
	WindowSeconds float64 `json:"window_seconds"`
	Scheduled     int64   `json:"scheduled"`
	// Sent counts the requests sent whose slot lies within the window.
	Sent int64 `json:"sent"`
	// AfterWindow counts the requests whose slot came due just as the window
	// closed: issued as the run stopped, they are cancelled at once and
	// counted nowhere else.
	AfterWindow int64 `json:"after_window"`
	// AchievedRate is Sent ÷ WindowSeconds.
	AchievedRate float64 `json:"achieved_rate"`
	// RateError is (AchievedRate − RequestedRate) ÷ RequestedRate.
	RateError float64 `json:"rate_error"`
	// Completed counts successful and errored requests.
	Completed     int64            `json:"completed"`
	Successful    int64            `json:"successful"`
	Errored       int64            `json:"errored"`
	ErroredByType map[string]int64 `json:"errored_by_type"`
	// Incomplete counts the requests cancelled in flight at the end
	// (canceled) and those llmprober could not carry out for want of its
	// own resources (prober), by error type in IncompleteByType.
	Incomplete       int64            `json:"incomplete"`
	IncompleteByType map[string]int64 `json:"incomplete_by_type"`
	Dropped          int64            `json:"dropped"`
	DroppedByReason  map[string]int64 `json:"dropped_by_reason"`
	DispatchDelay    Delays           `json:"dispatch_delay"`
	// Latency is the request latency of the successful requests.
	Latency    Delays  `json:"latency"`
	CPUSeconds float64 `json:"cpu_seconds"`
	// CPUSecondsPer1000 is CPUSeconds per 1000 sent requests; 0 when none was sent.
	CPUSecondsPer1000 float64 `json:"cpu_seconds_per_1000_requests"`
	PeakRSSBytes      int64   `json:"peak_rss_bytes"`
}

// NewReport summarises run.
func NewReport(run Result) Report {
	r := Report{
		RequestedRate: run.Rate, WindowSeconds: run.Window.Seconds(), Scheduled: run.Scheduled,
		ErroredByType: map[string]int64{}, IncompleteByType: map[string]int64{}, DroppedByReason: map[string]int64{},
		CPUSeconds: run.CPU.Seconds(), PeakRSSBytes: run.PeakRSS,
	}
	samples, after := withinWindow(run.Samples, run.Window)
	r.Sent, r.AfterWindow = int64(len(samples)), int64(after)
	if r.WindowSeconds > 0 {
		r.AchievedRate = float64(r.Sent) / r.WindowSeconds
	}
	if r.RequestedRate > 0 {
		r.RateError = (r.AchievedRate - r.RequestedRate) / r.RequestedRate
	}
	var dispatch, latency []float64
	for _, s := range samples {
		r.count(s)
		if s.HasDispatch {
			dispatch = append(dispatch, s.Dispatch.Seconds())
		}
		if s.HasLatency {
			latency = append(latency, s.Latency.Seconds())
		}
	}
	r.Completed = r.Successful + r.Errored
	for reason, n := range run.Dropped {
		r.DroppedByReason[string(reason)] = n
		r.Dropped += n
	}
	r.DispatchDelay, r.Latency = summarizeDelays(dispatch), summarizeDelays(latency)
	if r.Sent > 0 {
		r.CPUSecondsPer1000 = r.CPUSeconds * 1000 / float64(r.Sent)
	}
	return r
}

// withinWindow returns the samples whose slot lies in [start, start+window),
// start being the earliest slot (request 0's, when the schedule began), and
// how many were left out. Samples without a slot are kept.
func withinWindow(samples []Sample, window time.Duration) ([]Sample, int) {
	var start time.Time
	for _, s := range samples {
		if !s.TargetedStart.IsZero() && (start.IsZero() || s.TargetedStart.Before(start)) {
			start = s.TargetedStart
		}
	}
	end := start.Add(window)
	kept := make([]Sample, 0, len(samples))
	for _, s := range samples {
		if s.TargetedStart.IsZero() || s.TargetedStart.Before(end) {
			kept = append(kept, s)
		}
	}
	return kept, len(samples) - len(kept)
}

// count adds one sent request to the outcome counts.
func (r *Report) count(s Sample) {
	switch s.Outcome {
	case probe.Successful:
		r.Successful++
	case probe.Errored:
		r.Errored++
		r.ErroredByType[string(s.ErrorType)]++
	case probe.Incomplete:
		r.Incomplete++
		r.IncompleteByType[string(s.ErrorType)]++
	}
}

// summarizeDelays returns the p50, p99 and maximum of values (seconds).
func summarizeDelays(values []float64) Delays {
	s := stats.Summarize(values, 0)
	d := Delays{Count: s.Count, Max: s.Max}
	if v, ok := s.Percentile(stats.P50); ok {
		d.P50 = &v
	}
	if v, ok := s.Percentile(stats.P99); ok {
		d.P99 = &v
	}
	return d
}

// WriteJSON prints the report as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("could not write report: %w", err)
	}
	return nil
}

// WriteText prints the report for a person, under title.
func (r Report) WriteText(w io.Writer, title string) {
	fmt.Fprintln(w, title)
	fmt.Fprintf(w, "  requested rate   %.2f req/s\n", r.RequestedRate)
	fmt.Fprintf(w, "  achieved rate    %.2f req/s (%+.3f %%): %d sent in %.3f s, %d scheduled\n",
		r.AchievedRate, 100*r.RateError, r.Sent, r.WindowSeconds, r.Scheduled)
	fmt.Fprintf(w, "  completed        %d (successful %d, errored %d%s)\n",
		r.Completed, r.Successful, r.Errored, countsText(r.ErroredByType))
	fmt.Fprintf(w, "  incomplete       %d (canceled: in flight at the end; prober: llmprober out of a resource%s)\n",
		r.Incomplete, countsText(r.IncompleteByType))
	if r.AfterWindow > 0 {
		fmt.Fprintf(w, "  after window     %d (due as the run stopped, not counted above)\n", r.AfterWindow)
	}
	fmt.Fprintf(w, "  dropped          %d%s\n", r.Dropped, countsText(r.DroppedByReason))
	fmt.Fprintf(w, "  dispatch delay   %s\n", r.DispatchDelay.text())
	fmt.Fprintf(w, "  latency          %s (successful requests)\n", r.Latency.text())
	fmt.Fprintf(w, "  CPU              %.3f s user+sys, %.4f s per 1000 requests\n", r.CPUSeconds, r.CPUSecondsPer1000)
	fmt.Fprintf(w, "  peak RSS         %.1f MiB\n", float64(r.PeakRSSBytes)/(1<<20))
}

// countsText lists non-zero counts as ": a 1, b 2" in name order; empty when none.
func countsText(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}

// text shows the percentiles in milliseconds.
func (d Delays) text() string {
	if d.Count == 0 {
		return "none"
	}
	ms := func(v *float64) string { return fmt.Sprintf("%.3f ms", *v*1000) }
	return fmt.Sprintf("p50 %s, p99 %s, max %s (n=%d)", ms(d.P50), ms(d.P99), ms(d.Max), d.Count)
}
