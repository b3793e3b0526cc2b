package window

import (
	"cmp"
	"iter"
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
// first call and shared: do not modify it. All yields the same records
// without building the slice.
func (s *Snapshot) Records() []Record {
	s.recordsOnce.Do(func() {
		s.records = make([]Record, 0, len(s.entries))
		for r := range s.All() {
			s.records = append(s.records, *r)
		}
	})
	return s.records
}

// All yields the records of Records, in the same order, one at a time:
// the *Record is reused from one record to the next (copy it to keep it).
// It holds 16 bytes per record of the window while it runs, where Records
// holds about 900, so a caller that streams the records out (the JSON
// API) keeps its memory flat.
func (s *Snapshot) All() iter.Seq[*Record] {
	return func(yield func(*Record) bool) {
		order := slices.Clone(s.entries)
		slices.SortStableFunc(order, func(a, b weightedEntry) int {
			if c := cmp.Compare(a.e.end, b.e.end); c != 0 {
				return c
			}
			return cmp.Compare(a.e.seq, b.e.seq)
		})
		a := &accumulator{start: s.startOff, now: s.endOff}
		var r Record
		for _, we := range order {
			r = Record{Request: we.e.record(s.origin), Weight: we.weight}
			r.Request.ErrorCode = s.codes.code(we.e.code)
			r.vals, r.defined = values(&r.Request)
			for m := range numMetrics {
				r.included[m] = r.defined[m] && a.contains(we.e.eventTime(Metric(m)))
			}
			if !yield(&r) {
				return
			}
		}
	}
}
