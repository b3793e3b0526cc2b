package window

import (
	"cmp"
	"slices"

	"github.com/llmprober/llmprober/probe"
)

// Record is one request a window used, with what the window derived from
// it.
type Record struct {
	// Request holds the request's instants (zero when absent), token counts
	// and sources, the usage flags, streaming iteration count, outcome,
	// error type and code, HTTP status, stream flag and sequence number;
	// for a WebSocket request,
	// Sent and Received hold one stand-in instant each that reproduce its
	// round-trip metrics (the last packet sent, and that plus the average
	// RTT), not its packets. Other fields are empty.
	Request probe.Record
	// Weight is the number of the window's requests of its status this one
	// stands for: 1 when the window is exact, the bucket's count ÷ its
	// sampled count when it was sampled.
	Weight float64

	vals     [numMetrics]value
	defined  [numMetrics]bool
	included [numMetrics]bool
}

// Value returns the record's value of metric m in the metric's unit and its
// token weight (1 for unweighted metrics); ok is false when m is undefined
// for this request.
func (r *Record) Value(m Metric) (v float64, weight int64, ok bool) {
	if !m.valid() || !r.defined[m] {
		return 0, 0, false
	}
	return r.vals[m].v, r.vals[m].w, true
}

// Included reports whether the record's value of m counts in the window's
// summary of m: it is defined and its deciding event (the end, the first
// token for TTFT and TTFOT, the request start for dispatch delay and
// scheduled latency) lies in the window.
func (r *Record) Included(m Metric) bool { return m.valid() && r.included[m] }

// Records returns the records the window used, ordered by end then
// sequence number: every one when the window is exact, the sampled ones
// (with their weights) when it is Approximate. The slice is built on the
// first call and shared: do not modify it.
func (s *Snapshot) Records() []Record {
	s.recordsOnce.Do(func() {
		s.records = make([]Record, len(s.entries))
		a := &accumulator{start: s.startOff, now: s.endOff}
		for i, we := range s.entries {
			r := &s.records[i]
			r.Request, r.Weight = we.e.record(s.origin), we.weight
			r.Request.ErrorCode = s.codes.code(we.e.code)
			r.vals, r.defined = values(&r.Request)
			for m := range numMetrics {
				r.included[m] = r.defined[m] && a.contains(we.e.eventTime(Metric(m)))
			}
		}
		slices.SortStableFunc(s.records, func(a, b Record) int {
			if c := a.Request.End.Compare(b.Request.End); c != 0 {
				return c
			}
			return cmp.Compare(a.Request.Seq, b.Request.Seq)
		})
	})
	return s.records
}
