package window

import (
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// Defaults of the history (Settings.HistoryInterval, HistoryRetention).
const (
	// DefaultHistoryInterval is the length of one history point.
	DefaultHistoryInterval = 10 * time.Second
	// DefaultHistoryRetention is how far back the history reaches.
	DefaultHistoryRetention = 6 * time.Hour
	// HistorySampleCap is the number of values of each quantity an open
	// interval keeps exactly; past it, a uniform reservoir of that many.
	HistorySampleCap = 256
	// maxHistoryPoints bounds Retention ÷ Interval.
	maxHistoryPoints = 100000
)

// HistoryQuantities are the quantities whose percentiles each history
// point holds, in order: every latency quantity of the successful
// requests, and the dispatch delay of every finished request.
var HistoryQuantities = []Metric{RequestLatency, TTFT, TTFOT, ITL, TPOT, DispatchDelay}

// HistoryLevels are the percentile levels each history point holds.
var HistoryLevels = []stats.Level{stats.P50, stats.P90, stats.P99}

// history is one target's fixed-interval aggregates: a ring of the last
// size closed intervals and the open one. Interval n covers
// [anchor + n·interval, anchor + (n+1)·interval). Closed points are kept
// encoded (pointChunk), so that a point takes about as many bytes as it has
// non-zero counters and distinct percentiles (see docs/measurement.md, "History").
type history struct {
	interval time.Duration
	size     int
	lay      layout // the counters of a point
	nobj     int
	anchor   time.Time
	begun    bool
	head     int64 // the open interval

	chunks []pointChunk // numChunks(size), allocated as points are closed
	closed point        // the point being filed, or read

	open     openInterval
	inflight int
	last     time.Time // busy time is accounted up to last
}

// openInterval accumulates the interval being filled.
type openInterval struct {
	counts  []uint32
	busy    float64
	samples []reservoir // one per HistoryQuantities
	rng     *rand.Rand
}

// reservoir is a reservoir of weighted values.
type reservoir struct {
	values  []float64
	weights []int64
	seen    int64
}

// add offers one value to the reservoir.
func (s *reservoir) add(v float64, w int64, rng *rand.Rand) {
	s.seen++
	if len(s.values) < HistorySampleCap {
		s.values, s.weights = append(s.values, v), append(s.weights, w)
		return
	}
	if j := rng.Int64N(s.seen); j < HistorySampleCap {
		s.values[j], s.weights[j] = v, w
	}
}

// newHistory returns an empty history of retention ÷ interval points.
func newHistory(interval, retention time.Duration, objectives int, seed uint64) history {
	h := history{interval: interval, size: int(retention / interval), nobj: objectives}
	h.lay = counterLayout(objectives)
	h.open = openInterval{counts: make([]uint32, h.lay.total), samples: make([]reservoir, len(HistoryQuantities)),
		rng: rand.New(rand.NewPCG(seed, uint64(interval)))}
	h.closed = point{counts: make([]uint32, h.lay.total), pct: make([]float32, len(HistoryQuantities)*len(HistoryLevels))}
	return h
}

// layout is where each counter of a point lies among its cols.
type layout struct {
	requests, errors, scheduled, sent, dropped, output, slo, total int
}

// counterLayout returns the counters of a point with objectives sets:
// requests by status, errors by type (errorTypes without "none"),
// scheduled, sent, drops by reason, output tokens, and evaluated and
// conforming per objective set.
func counterLayout(objectives int) layout {
	var l layout
	next := func(n int) int { at := l.total; l.total += n; return at }
	l.requests = next(numStatuses)
	l.errors = next(len(errorTypes) - 1)
	l.scheduled, l.sent = next(1), next(1)
	l.dropped = next(len(probe.DropReasons))
	l.output = next(1)
	l.slo = next(2 * objectives)
	return l
}

// start allocates the ring and anchors interval 0 at now, aligned down to
// a multiple of the interval of wall-clock time (keeping now's monotonic
// reading).
func (h *history) begin(now time.Time) {
	h.begun = true
	h.anchor = now.Add(-now.Sub(now.Truncate(h.interval)))
	h.last = h.anchor
	h.chunks = make([]pointChunk, numChunks(h.size))
	for i := range h.chunks {
		h.chunks[i].chunk = -1
	}
}

// advance closes every interval that ended by now, accounting the time in
// flight up to now.
func (h *history) advance(now time.Time) {
	if !h.begun {
		h.begin(now)
	}
	n := h.number(now)
	if n-h.head > int64(h.size) {
		h.close(h.until(h.head + 1))
		h.skip(n)
	}
	for h.head < n {
		h.close(h.until(h.head + 1))
	}
	h.addBusy(now)
}

// number returns the interval holding t; an instant before the open
// interval (a clock that went back) counts in the open interval.
func (h *history) number(t time.Time) int64 {
	d := t.Sub(h.anchor)
	if d < 0 {
		return h.head
	}
	return max(int64(d/h.interval), h.head)
}

// until returns the start of interval n.
func (h *history) until(n int64) time.Time { return h.anchor.Add(time.Duration(n) * h.interval) }

// addBusy accounts the requests in flight from h.last to t.
func (h *history) addBusy(t time.Time) {
	if d := t.Sub(h.last); d > 0 {
		h.open.busy += float64(h.inflight) * d.Seconds()
		h.last = t
	}
}

// close accounts the busy time up to end, files the open interval in the
// ring and opens the next one.
func (h *history) close(end time.Time) {
	h.addBusy(end)
	p := &h.closed
	copy(p.counts, h.open.counts)
	p.busy = float32(h.open.busy)
	p.approx = h.fillPercentiles(p.pct)
	h.store(h.head, p)
	clear(h.open.counts)
	h.open.busy = 0
	for q := range h.open.samples {
		s := &h.open.samples[q]
		s.values, s.weights, s.seen = s.values[:0], s.weights[:0], 0
	}
	h.head++
}

// fillPercentiles writes the open interval's percentiles into dst (NaN
// where a quantity has no value) and reports whether any was estimated
// from a reservoir.
func (h *history) fillPercentiles(dst []float32) bool {
	approx := false
	for q := range HistoryQuantities {
		s := &h.open.samples[q]
		approx = approx || s.seen > int64(len(s.values))
		sum := stats.SummarizeWeighted(s.values, s.weights)
		for l, level := range HistoryLevels {
			v, ok := sum.Percentile(level)
			if !ok {
				v = math.NaN()
			}
			dst[q*len(HistoryLevels)+l] = float32(v)
		}
	}
	return approx
}

// skip moves the open interval, just closed, to the first of the size
// intervals before n, so that advance closes each of them (empty, with the
// requests in flight busy all along) instead of every interval in between.
func (h *history) skip(n int64) {
	h.head = n - int64(h.size)
	h.last = h.until(h.head)
}

// count adds one to counter c of the open interval, saturating.
func (h *history) count(c int, n uint32) {
	v := &h.open.counts[c]
	*v = uint32(min(uint64(*v)+uint64(n), math.MaxUint32))
}

// HistoryBytes returns the most memory a target's history holds, in bytes,
// with the given interval, retention and number of objective sets, every
// point at its largest: numChunks chunks of 64 points, plus one chunk's
// data for the chunk being filled (which grows by doubling until it is
// trimmed when full) and an eighth of each chunk's data for the
// allocator's size classes, each point 1 flag byte, 4 of busy time, a bitmap of
// the counters (17 plus 2 per objective set) and 5 bytes per counter,
// 1 + 4 × 18 bytes of percentiles and 18 of indices; and the open
// interval's reservoirs, 16 bytes per value, HistorySampleCap values of each
// of the 6 quantities once an interval has had that many. A point of a
// target probed at 0.2 requests/s takes about a third of the largest (see
// docs/measurement.md, "History").
func HistoryBytes(interval, retention time.Duration, objectives int) int {
	counters := counterLayout(objectives).total
	pcts := len(HistoryQuantities) * len(HistoryLevels)
	perPoint := 1 + 4 + (counters+7)/8 + 5*counters + 1 + 5*pcts
	chunks := numChunks(int(retention / interval))
	data := pointsPerChunk * perPoint
	chunk := int(unsafe.Sizeof(pointChunk{})) + data + data/8
	return chunks*chunk + data + len(HistoryQuantities)*HistorySampleCap*16
}
