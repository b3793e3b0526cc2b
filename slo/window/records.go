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
// scheduled latency) lies in the window; for a request that ended after
// a window read by SnapshotSpan, when the interval deciding m overlaps it.
func (r *Record) Included(m Metric) bool { return m.valid() && r.included[m] }

// Records returns the records the window used, ordered by end then
// sequence number: every one when the window is exact, the sampled ones
// (with their weights) when it is Approximate. The slice is built on the
// first call and shared: do not modify it. All yields the same records
// without building the slice.
func (s *Snapshot) Records() []Record {
	s.recordsOnce.Do(func() {
		for r := range s.All() {
			s.records = append(s.records, *r)
		}
	})
	return s.records
}

// All yields the records of Records, in the same order, one at a time:
// the *Record is reused from one record to the next (copy it to keep it).
// The buckets hold their records by end, so it sorts one bucket's at a
// time: while it runs it holds 8 bytes per record of the largest bucket,
// where Records holds about 900 per record of the window, so a caller
// that streams the records out (the JSON API) keeps its memory flat.
func (s *Snapshot) All() iter.Seq[*Record] {
	return func(yield func(*Record) bool) {
		a := &accumulator{start: s.startOff, now: s.endOff, horizon: s.horizonOff}
		var order []*entry
		var r Record
		for _, p := range s.parts {
			order = order[:0]
			for i := range p.entries {
				if e := &p.entries[i]; a.counts(e) {
					order = append(order, e)
				}
			}
			slices.SortStableFunc(order, func(x, y *entry) int {
				return cmp.Or(cmp.Compare(x.end, y.end), cmp.Compare(x.seq, y.seq))
			})
			for _, e := range order {
				s.setRecord(&r, a, e, p.weight[e.status])
				if !yield(&r) {
					return
				}
			}
		}
	}
}

// setRecord sets r to the Record of e, which stands for weight records,
// in the window of a's bounds.
func (s *Snapshot) setRecord(r *Record, a *accumulator, e *entry, weight float64) {
	*r = Record{Request: e.record(s.origin), Weight: weight}
	r.Request.ErrorCode = s.codes.code(e.code)
	r.vals, r.defined = values(&r.Request)
	for m := range numMetrics {
		r.included[m] = r.defined[m] && a.includes(Metric(m), e)
	}
}
