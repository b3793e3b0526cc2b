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
	// and sources, streaming iteration count, outcome, error type, HTTP
	// status, stream flag and sequence number; for a WebSocket request,
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
		a := &accumulator{start: s.startOff, now: s.endOff}
		for _, p := range s.parts {
			for i := range p.entries {
				if e := &p.entries[i]; a.contains(e.end) {
					s.records = append(s.records, s.newRecord(a, e, p.weight[e.status]))
				}
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

// newRecord returns the Record of e, which stands for weight records, in
// the window of a's bounds.
func (s *Snapshot) newRecord(a *accumulator, e *entry, weight float64) Record {
	r := Record{Request: e.record(s.origin), Weight: weight}
	r.vals, r.defined = values(&r.Request)
	for m := range numMetrics {
		r.included[m] = r.defined[m] && a.contains(e.eventTime(Metric(m)))
	}
	return r
}
