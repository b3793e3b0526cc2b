package window

import (
	"math"
	"slices"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// absent marks an instant that never happened in an entry.
const absent = math.MinInt64

// numStatuses is the number of request statuses (successful, errored,
// incomplete), the first dimension of per-status arrays.
const numStatuses = 3

// entry is what a store keeps of one finished request, in 96 bytes.
// Instants are nanoseconds from the store's origin (the measure start), or
// absent; lastRoundTrip and averageRTT are the WebSocket round-trip
// metrics in nanoseconds, or absent.
type entry struct {
	seq                                                 uint64
	targeted, start, firstToken, firstOutput, last, end int64
	lastRoundTrip, averageRTT                           int64
	promptTokens, outputTokens, iterations              int32
	httpStatus                                          uint16
	status, errorType, promptFrom, outputFrom           uint8
	// evaluated and conforming are the request's verdicts: bit i is set
	// when objective set i evaluated it, and when it conformed to it.
	evaluated, conforming uint8
	// flags holds the record's flags (flagStream, …).
	flags uint8
	// code numbers the record's error code in its store's table (see
	// codeTable); 0 for none.
	code uint8
}

// The bits of entry.flags.
const (
	flagStream uint8 = 1 << iota
	flagUsageInconsistent
	flagTokensClamped
	// flagOutputSeen: the response carried output (probe.Record.OutputSeen),
	// which defines the TPOT of a response that was not streamed.
	flagOutputSeen
)

// flagsOf returns the flags of rec.
func flagsOf(rec *probe.Record) uint8 {
	f := uint8(0)
	set := func(bit uint8, on bool) {
		if on {
			f |= bit
		}
	}
	set(flagStream, rec.Stream)
	set(flagUsageInconsistent, rec.UsageInconsistent)
	set(flagTokensClamped, rec.TokensClamped)
	set(flagOutputSeen, rec.OutputSeen)
	return f
}

// errorTypes numbers the error types an entry can hold; an unknown one is
// kept as errorTypeOther.
var errorTypes = slices.Concat([]probe.ErrorType{probe.ErrorNone}, probe.ErrorTypes, probe.IncompleteErrorTypes)

// errorTypeOther is the error type shown for one outside probe's list.
const errorTypeOther probe.ErrorType = "other"

// tokenSources numbers the token sources.
var tokenSources = []probe.TokenSource{probe.TokensUnknown, probe.TokensFromUsage, probe.TokensCounted, probe.TokensFromWorkload}

// statusOf maps an outcome to a status; an unknown outcome counts as errored.
func statusOf(o probe.Outcome) stats.Status {
	switch o {
	case probe.Successful:
		return stats.StatusSuccessful
	case probe.Incomplete:
		return stats.StatusIncomplete
	}
	return stats.StatusErrored
}

// index returns the position of v in list, or len(list) when absent.
func index[T comparable](list []T, v T) uint8 {
	i := slices.Index(list, v)
	if i < 0 {
		return uint8(len(list))
	}
	return uint8(i)
}

// offset returns t − origin in nanoseconds, or absent for the zero time.
func offset(t, origin time.Time) int64 {
	if t.IsZero() {
		return absent
	}
	return int64(t.Sub(origin))
}

// instant is the inverse of offset.
func instant(off int64, origin time.Time) time.Time {
	if off == absent {
		return time.Time{}
	}
	return origin.Add(time.Duration(off))
}

// clamp32 converts a count to int32, saturating.
func clamp32(n int) int32 {
	return int32(min(max(n, math.MinInt32), math.MaxInt32))
}

// newEntry keeps what the windows need of rec; end replaces a zero rec.End.
func newEntry(rec *probe.Record, origin, end time.Time) entry {
	e := entry{
		seq: rec.Seq, targeted: offset(rec.TargetedStart, origin), start: offset(rec.RequestStart, origin),
		firstToken: offset(rec.FirstToken, origin), firstOutput: offset(rec.FirstOutputToken, origin),
		last: offset(rec.LastToken, origin), end: offset(end, origin),
		promptTokens: clamp32(rec.PromptTokens), outputTokens: clamp32(rec.OutputTokens),
		iterations: clamp32(rec.Iterations), httpStatus: uint16(min(max(rec.HTTPStatus, 0), math.MaxUint16)),
		status: uint8(statusOf(rec.Outcome)), errorType: index(errorTypes, rec.ErrorType),
		promptFrom: index(tokenSources, rec.PromptTokensFrom), outputFrom: index(tokenSources, rec.OutputTokensFrom),
		flags: flagsOf(rec), lastRoundTrip: nanos(rec.TimeToLastRoundTrip()), averageRTT: nanos(rec.AverageRTT()),
	}
	return e
}

// nanos returns d in nanoseconds, or absent when it is undefined.
func nanos(d time.Duration, defined bool) int64 {
	if !defined {
		return absent
	}
	return int64(d)
}

// roundTrips returns one stand-in sent and one received instant that give
// the entry's round-trip metrics under probe's definitions: the last
// packet sent (the last token − the time to last round trip, or the
// request start when that is undefined), and that plus the average RTT;
// empty when the request has none (not WebSocket).
func (e *entry) roundTrips(origin time.Time) (sent, received probe.Instants) {
	if e.averageRTT == absent {
		return sent, received
	}
	at := e.start
	if e.lastRoundTrip != absent && e.last != absent {
		at = e.last - e.lastRoundTrip
	}
	s := instant(at, origin)
	return probe.InstantsOf(s), probe.InstantsOf(s.Add(time.Duration(e.averageRTT)))
}

// outcome returns the probe outcome of the entry's status.
func (e *entry) outcome() probe.Outcome {
	return probe.Outcomes[e.status]
}

// record rebuilds the probe.Record fields the derived quantities use, so
// that they are computed by probe's own definitions, and the flags. Sent
// and Received are stand-ins (see roundTrips), not the request's packets;
// the error code is the store's to fill in (codeTable).
func (e *entry) record(origin time.Time) probe.Record {
	sent, received := e.roundTrips(origin)
	return probe.Record{
		Seq: e.seq, Stream: e.flags&flagStream != 0,
		UsageInconsistent: e.flags&flagUsageInconsistent != 0, TokensClamped: e.flags&flagTokensClamped != 0,
		OutputSeen:    e.flags&flagOutputSeen != 0,
		TargetedStart: instant(e.targeted, origin), RequestStart: instant(e.start, origin),
		FirstToken: instant(e.firstToken, origin), FirstOutputToken: instant(e.firstOutput, origin),
		LastToken: instant(e.last, origin), End: instant(e.end, origin),
		PromptTokens: int(e.promptTokens), PromptTokensFrom: e.tokenSource(e.promptFrom),
		OutputTokens: int(e.outputTokens), OutputTokensFrom: e.tokenSource(e.outputFrom),
		Iterations: int(e.iterations), Outcome: e.outcome(), ErrorType: e.errorTypeValue(),
		HTTPStatus: int(e.httpStatus), Sent: sent, Received: received,
	}
}

func (e *entry) tokenSource(i uint8) probe.TokenSource {
	if int(i) < len(tokenSources) {
		return tokenSources[i]
	}
	return probe.TokensUnknown
}

func (e *entry) errorTypeValue() probe.ErrorType {
	if int(e.errorType) < len(errorTypes) {
		return errorTypes[e.errorType]
	}
	return errorTypeOther
}

// value is one quantity of a request: v in its unit, with weight w (1 for
// the unweighted metrics).
type value struct {
	v float64
	w int64
}

// values returns the request's quantities; ok[m] is false where m is
// undefined for it.
func values(r *probe.Record) (vs [numMetrics]value, ok [numMetrics]bool) {
	set := func(m Metric, d time.Duration, defined bool, w int64) {
		if defined && w > 0 {
			vs[m], ok[m] = value{d.Seconds(), w}, true
		}
	}
	finished := r.Finished()
	d, defined := r.Duration()
	set(RequestLatency, d, defined && finished, 1)
	d, defined = r.TTFT()
	set(TTFT, d, defined, 1)
	d, defined = r.TTFOT()
	set(TTFOT, d, defined, 1)
	d, defined = r.ITL()
	set(ITL, d, defined, int64(r.OutputTokens)-1)
	d, defined = r.TPOT()
	set(TPOT, d, defined, int64(r.OutputTokens))
	d, defined = r.DispatchDelay()
	set(DispatchDelay, d, defined, 1)
	defined = finished && !r.TargetedStart.IsZero() && !r.End.IsZero()
	set(ScheduledLatency, r.End.Sub(r.TargetedStart), defined, 1)
	d, defined = r.TimeToLastRoundTrip()
	set(TimeToLastRoundTrip, d, defined, 1)
	d, defined = r.AverageRTT()
	set(AverageRTT, d, defined, 1)
	count := func(m Metric, n int, defined bool) {
		if defined {
			vs[m], ok[m] = value{float64(n), 1}, true
		}
	}
	count(PromptTokens, r.PromptTokens, r.PromptTokensFrom != probe.TokensUnknown)
	count(OutputTokens, r.OutputTokens, r.OutputTokensFrom != probe.TokensUnknown)
	count(StreamingIterations, r.Iterations, r.Stream)
	return vs, ok
}

// values returns the entry's quantities as values(e.record(origin)) does,
// by probe's definitions, computed from its offsets without rebuilding the
// record: what indexing and evicting a record cost is mostly this.
// TestEntryValuesAsRecord holds the two to the same result.
func (e *entry) values() (vs [numMetrics]value, ok [numMetrics]bool) {
	set := func(m Metric, from, to int64, defined bool, w int64) {
		if defined && w > 0 && from != absent && to != absent {
			vs[m], ok[m] = value{(time.Duration(to-from) / time.Duration(w)).Seconds(), w}, true
		}
	}
	finished := e.status != uint8(stats.StatusIncomplete)
	set(RequestLatency, e.start, e.end, finished, 1)
	set(TTFT, e.start, e.firstToken, true, 1)
	set(TTFOT, e.start, e.firstOutput, true, 1)
	set(ITL, e.firstToken, e.last, e.outputTokens >= 2, int64(e.outputTokens)-1)
	last := e.last
	if e.flags&flagStream == 0 {
		last = absent
		if e.iterations > 0 || e.flags&flagOutputSeen != 0 { // probe.Record.HasOutput
			last = e.end
		}
	}
	set(TPOT, e.start, last, e.outputTokens >= 1, int64(e.outputTokens))
	set(DispatchDelay, e.targeted, e.start, true, 1)
	set(ScheduledLatency, e.targeted, e.end, finished, 1)
	if e.averageRTT != absent { // the stand-ins of roundTrips
		at := e.start
		if e.lastRoundTrip != absent && e.last != absent {
			at = e.last - e.lastRoundTrip
		}
		set(TimeToLastRoundTrip, at, e.last, true, 1)
		set(AverageRTT, 0, e.averageRTT, true, 1)
	}
	count := func(m Metric, n int32, defined bool) {
		if defined {
			vs[m], ok[m] = value{float64(n), 1}, true
		}
	}
	count(PromptTokens, e.promptTokens, e.tokenSource(e.promptFrom) != probe.TokensUnknown)
	count(OutputTokens, e.outputTokens, e.tokenSource(e.outputFrom) != probe.TokensUnknown)
	count(StreamingIterations, e.iterations, e.flags&flagStream != 0)
	return vs, ok
}

// eventTime returns the instant that decides whether metric m of e falls
// in a window: the window must contain it. Request-level quantities, ITL and
// TPOT use the end (a finished request's [first token, end] overlaps the
// window exactly when its end lies in it), TTFT and TTFOT their first
// token, dispatch delay and scheduled latency the request start.
func (e *entry) eventTime(m Metric) int64 {
	switch m {
	case TTFT:
		return e.firstToken
	case TTFOT:
		return e.firstOutput
	case DispatchDelay, ScheduledLatency:
		return e.start
	}
	return e.end
}

// tokenSpan returns the instants over which the output tokens are spread and
// at which the prompt tokens count: [first token, last token], or the end
// for a request without token events.
func (e *entry) tokenSpan() (from, to int64) {
	if e.firstToken == absent {
		return e.end, e.end
	}
	to = e.last
	if to == absent || to < e.firstToken {
		to = e.firstToken
	}
	return e.firstToken, to
}

// tokens returns the output and prompt tokens known for the request (0
// where unknown).
func (e *entry) tokens() (output, prompt int64) {
	if e.outputFrom != 0 {
		output = int64(e.outputTokens)
	}
	if e.promptFrom != 0 {
		prompt = int64(e.promptTokens)
	}
	return output, prompt
}

// busySpan returns the request's time in flight [start, end), starting at
// the end when the start is unknown.
func (e *entry) busySpan() (from, to int64) {
	if e.start == absent || e.start > e.end {
		return e.end, e.end
	}
	return e.start, e.end
}
