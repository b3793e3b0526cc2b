package window

import (
	"time"

	"github.com/llmprober/llmprober/probe"
)

// History is a target's fixed-interval aggregates over the last Retention,
// oldest point first: point i covers [Times[i], Times[i] + Interval). Every
// slice has one element per point. Counts are of the events in the
// interval by the store's clock: a request counts in the interval in which
// its record arrived, a due, sent or dropped request in the one in which
// that happened. Warmup is not excluded: the history shows every request.
type History struct {
	// Interval is the length of one point; Retention the span kept.
	Interval, Retention time.Duration
	// Times are the points' starts.
	Times []time.Time
	// Requests counts the finished requests by outcome, one entry per
	// probe.Outcomes in that order.
	Requests [][]uint32
	// Errors counts the errored and incomplete requests by error type, one
	// entry per HistoryErrorTypes in that order.
	Errors [][]uint32
	// Scheduled and Sent count the requests that became due and were sent.
	Scheduled, Sent []uint32
	// Dropped counts the due requests never sent, one entry per
	// probe.DropReasons in that order.
	Dropped [][]uint32
	// OutputTokens sums the output tokens of the finished requests (where
	// known).
	OutputTokens []uint32
	// Concurrency is the time-weighted mean number of requests in flight.
	Concurrency []float64
	// Percentiles holds, per HistoryQuantities and HistoryLevels, the
	// percentile of the point's values (token-weighted for ITL and TPOT, as
	// in the windows), kept in single precision (7 significant digits);
	// NaN where the point has none. Latency quantities are
	// of successful requests, dispatch delay of every finished request.
	Percentiles [][][]float64
	// Approximate is set where a percentile was estimated from a reservoir of
	// HistorySampleCap values.
	Approximate []bool
	// Objectives holds per objective set the requests evaluated and
	// conforming, in the store's order of Objectives.
	Objectives []HistoryObjective
}

// HistoryObjective is one objective set's verdict counts per point.
type HistoryObjective struct {
	// Name and Target are the set's name and target attainment.
	Name   string
	Target float64
	// Evaluated and Conforming count the requests per point.
	Evaluated, Conforming []uint32
}

// HistoryErrorTypes returns the error types the history counts, in order:
// probe.ErrorTypes, then probe.IncompleteErrorTypes.
func HistoryErrorTypes() []probe.ErrorType { return append([]probe.ErrorType(nil), errorTypes[1:]...) }

// HistorySpan returns the history's point length and retention.
func (s *Store) HistorySpan() (interval, retention time.Duration) {
	return s.set.HistoryInterval, s.set.HistoryRetention
}

// History returns the closed points of the last span (every point held
// when span ≤ 0 or exceeds the retention) as of the store clock's now.
// Before the first event it has no point (and every series is empty).
func (s *Store) History(span time.Duration) History {
	now := s.set.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	h := &s.hist
	out := History{Interval: h.interval, Retention: time.Duration(h.size) * h.interval}
	for _, o := range s.set.Objectives {
		out.Objectives = append(out.Objectives, HistoryObjective{Name: o.Name, Target: o.Attainment})
	}
	if !h.begun {
		out.alloc(0, h.nobj)
		return out
	}
	h.advance(now)
	first := max(h.head-int64(h.size), 0)
	if span > 0 {
		first = max(first, h.head-int64(span/h.interval))
	}
	out.alloc(int(h.head-first), h.nobj)
	for n := first; n < h.head; n++ {
		out.appendPoint(h, n)
	}
	return out
}

// alloc makes room for n points.
func (out *History) alloc(n, objectives int) {
	mk := func(k int) [][]uint32 {
		m := make([][]uint32, k)
		for i := range m {
			m[i] = make([]uint32, 0, n)
		}
		return m
	}
	out.Times = make([]time.Time, 0, n)
	out.Requests, out.Errors, out.Dropped = mk(numStatuses), mk(len(errorTypes)-1), mk(len(probe.DropReasons))
	out.Percentiles = make([][][]float64, len(HistoryQuantities))
	for q := range out.Percentiles {
		out.Percentiles[q] = make([][]float64, len(HistoryLevels))
	}
	for i := range objectives {
		out.Objectives[i].Evaluated = make([]uint32, 0, n)
		out.Objectives[i].Conforming = make([]uint32, 0, n)
	}
}

// appendPoint appends interval n, held in h's ring.
func (out *History) appendPoint(h *history, n int64) {
	pt := &h.closed
	h.load(n, pt)
	c, l := pt.counts, h.lay
	out.Times = append(out.Times, h.until(n))
	appendEach := func(dst [][]uint32, at int) {
		for k := range dst {
			dst[k] = append(dst[k], c[at+k])
		}
	}
	appendEach(out.Requests, l.requests)
	appendEach(out.Errors, l.errors)
	appendEach(out.Dropped, l.dropped)
	out.Scheduled, out.Sent = append(out.Scheduled, c[l.scheduled]), append(out.Sent, c[l.sent])
	out.OutputTokens = append(out.OutputTokens, c[l.output])
	out.Concurrency = append(out.Concurrency, float64(pt.busy)/h.interval.Seconds())
	out.Approximate = append(out.Approximate, pt.approx)
	p := pt.pct
	for q := range out.Percentiles {
		for k := range out.Percentiles[q] {
			out.Percentiles[q][k] = append(out.Percentiles[q][k], float64(p[q*len(HistoryLevels)+k]))
		}
	}
	for k := range out.Objectives {
		o := &out.Objectives[k]
		o.Evaluated, o.Conforming = append(o.Evaluated, c[l.slo+2*k]), append(o.Conforming, c[l.slo+2*k+1])
	}
}
