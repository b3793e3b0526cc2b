package probe

import "time"

// Record is everything measured about one request. Every timestamp comes from
// the prober's one injected clock; a zero time.Time means the instant never
// happened (absent), never "at zero". Derived quantities are methods that
// report whether they are defined; see the metric definitions in
// docs/measurement.md.
type Record struct {
	// Target is the configured target name.
	Target string
	// Seq is the request's sequence number within its target, from 0.
	Seq uint64
	// API is the API kind used, one of package api's (chat, completions,
	// realtime).
	API string
	// Stream reports whether the response was requested as a stream.
	Stream bool
	// ConversationID and Turn identify a multi-turn conversation's request;
	// empty and 0 for single-turn requests.
	ConversationID string
	Turn           int

	// TargetedStart is when the strategy scheduled the request; zero when the
	// strategy has no arrival schedule (synchronous, concurrent, throughput).
	TargetedStart time.Time
	// PredecessorDone is when the previous turn of the conversation finished,
	// if that was after TargetedStart; zero otherwise.
	PredecessorDone time.Time
	// RequestStart is taken immediately before the HTTP request is issued.
	RequestStart time.Time
	// FirstChunk is the first stream data event of any kind (role-only included).
	FirstChunk time.Time
	// FirstToken is the first token event.
	FirstToken time.Time
	// FirstOutputToken is the first event with non-empty visible content.
	FirstOutputToken time.Time
	// LastToken is the last token event.
	LastToken time.Time
	// End is when the response was fully read, or when the request failed.
	End time.Time

	// HTTP holds connection-phase instants from net/http/httptrace.
	HTTP HTTPTrace
	// ChunkGaps summarizes the arrival times of every stream data event
	// (role, token, finish and usage chunks; not comments, heartbeats,
	// keep-alives or [DONE]) and the gaps between them, in constant memory;
	// nil when no chunk arrived.
	ChunkGaps *Gaps
	// Sent and Received summarize the WebSocket packet send times and token
	// receive times; empty for HTTP requests.
	Sent, Received Instants

	// PromptTokens is the number of input tokens; PromptTokensFrom says where it came from.
	PromptTokens     int
	PromptTokensFrom TokenSource
	// OutputTokens is the number of output tokens; OutputTokensFrom says where it came from.
	OutputTokens     int
	OutputTokensFrom TokenSource
	// RequestedOutputTokens is the output length the workload asked for (max tokens).
	RequestedOutputTokens int
	// Iterations is the streaming iteration count: the number of token events.
	Iterations int
	// OutputSeen reports that the response carried output: a token event in
	// a stream, or in a whole response a choice with non-empty content,
	// reasoning or a tool call. A successful response without it is an empty
	// reply, which conforms to no objective set.
	OutputSeen bool
	// UsageInconsistent reports that the server's usage report could not be
	// taken as it was: it claimed fewer output tokens than the response
	// showed, output tokens when none was seen, or more than the request's
	// max tokens or MaxTokens (then the token events are counted instead,
	// or for a whole response the count is unknown), no prompt tokens for a
	// prompt that was sent, or more than MaxTokens (then the workload's
	// count is taken), a count that went down from one report to the next
	// (the last is taken), or a count that is negative, fractional or not a
	// number (ignored).
	UsageInconsistent bool
	// TokensClamped reports that a token count of the server's was larger
	// than MaxTokens, so it was not taken (UsageInconsistent too).
	TokensClamped bool

	// Outcome is the request's final status.
	Outcome Outcome
	// ErrorType classifies an errored or incomplete request; ErrorNone otherwise.
	ErrorType ErrorType
	// Error is a short human-readable reason, with credentials redacted; never a label.
	Error string
	// ErrorCode is the code the server gave with its error (the "code" of
	// an error event or an error body, such as 500 or "invalid_audio"),
	// with its JSON type, bounded and redacted like Error; the zero
	// ErrorCode when it gave none. Never a label.
	ErrorCode ErrorCode
	// HTTPStatus is the response status code, 0 when no response arrived.
	HTTPStatus int
}

// HTTPTrace holds the connection phases of one HTTP request. Zero times mean
// the phase did not happen (for example DNS, connect and TLS on a reused connection).
type HTTPTrace struct {
	DNSStart, DNSDone         time.Time
	ConnectStart, ConnectDone time.Time
	TLSStart, TLSDone         time.Time
	GotConn                   time.Time
	ConnReused                bool
	WroteRequest              time.Time
	FirstByte                 time.Time
}

// TokenSource says where a token count came from.
type TokenSource string

// Token count sources.
const (
	// TokensUnknown means no count is available.
	TokensUnknown TokenSource = ""
	// TokensFromUsage means the server's usage report.
	TokensFromUsage TokenSource = "usage"
	// TokensCounted means output tokens counted as token events.
	TokensCounted TokenSource = "counted"
	// TokensFromWorkload means the workload's own estimate of the prompt length.
	TokensFromWorkload TokenSource = "workload"
)

// span returns b − a when both instants exist.
func span(a, b time.Time) (time.Duration, bool) {
	if a.IsZero() || b.IsZero() {
		return 0, false
	}
	return b.Sub(a), true
}

// Finished reports whether the request completed (successful or errored), as
// opposed to being cancelled as incomplete or still running.
func (r *Record) Finished() bool {
	return r.Outcome == Successful || r.Outcome == Errored
}

// Latency is request latency, End − RequestStart; defined for a finished
// request (successful or errored), absent for an incomplete one.
// Definition: metrics reference, Request Latency.
func (r *Record) Latency() (time.Duration, bool) {
	if !r.Finished() {
		return 0, false
	}
	return span(r.RequestStart, r.End)
}

// HasOutput reports whether the response carried any output: a token
// event (Iterations > 0) or OutputSeen. A successful response without
// output is an empty reply.
func (r *Record) HasOutput() bool { return r.Iterations > 0 || r.OutputSeen }

// Duration is End − RequestStart for any request that was sent, whatever its
// outcome (the GenAI operation duration, which is recorded for failures too).
func (r *Record) Duration() (time.Duration, bool) { return span(r.RequestStart, r.End) }

// TTFT is FirstToken − RequestStart; undefined when not streamed or no token arrived.
// Definition: metrics reference, Time to First Token.
func (r *Record) TTFT() (time.Duration, bool) { return span(r.RequestStart, r.FirstToken) }

// TTFOT is FirstOutputToken − RequestStart; undefined when not streamed or no
// visible output arrived. Definition: metrics reference, TTFOT.
func (r *Record) TTFOT() (time.Duration, bool) { return span(r.RequestStart, r.FirstOutputToken) }

// TimeToFirstChunk is FirstChunk − RequestStart (GenAI time_to_first_chunk).
func (r *Record) TimeToFirstChunk() (time.Duration, bool) { return span(r.RequestStart, r.FirstChunk) }

// ITL is (LastToken − FirstToken) / (OutputTokens − 1); undefined when fewer
// than 2 output tokens or no token event (whatever the usage report says),
// or the request was not streamed.
// Definition: metrics reference, Inter-Token Latency.
func (r *Record) ITL() (time.Duration, bool) {
	d, ok := span(r.FirstToken, r.LastToken)
	if !ok || r.OutputTokens < 2 {
		return 0, false
	}
	return d / time.Duration(r.OutputTokens-1), true
}

// TPOT is (LastToken − RequestStart) / OutputTokens; undefined when no output
// token, or no output was seen whatever the usage report says (HasOutput;
// in a stream, no LastToken). For a non-streamed response with output
// LastToken is End.
// Definition: metrics reference, Time Per Output Token.
func (r *Record) TPOT() (time.Duration, bool) {
	last := r.LastToken
	if !r.Stream {
		last = time.Time{}
		if r.HasOutput() {
			last = r.End
		}
	}
	d, ok := span(r.RequestStart, last)
	if !ok || r.OutputTokens < 1 {
		return 0, false
	}
	return d / time.Duration(r.OutputTokens), true
}

// DispatchDelay is RequestStart − TargetedStart; undefined without an arrival schedule.
// Definition: metrics reference, Dispatch Delay.
func (r *Record) DispatchDelay() (time.Duration, bool) { return span(r.TargetedStart, r.RequestStart) }

// TurnPredecessorDelay is the part of the dispatch delay spent waiting for a
// previous turn still running after TargetedStart; 0 without one.
// Definition: metrics reference, Turn Predecessor Delay.
func (r *Record) TurnPredecessorDelay() (time.Duration, bool) {
	dd, ok := r.DispatchDelay()
	if !ok {
		return 0, false
	}
	if r.PredecessorDone.IsZero() || !r.PredecessorDone.After(r.TargetedStart) {
		return 0, true
	}
	return min(r.PredecessorDone.Sub(r.TargetedStart), dd), true
}

// TurnSchedulingDelay is DispatchDelay − TurnPredecessorDelay.
// Definition: metrics reference, Turn Scheduling Delay.
func (r *Record) TurnSchedulingDelay() (time.Duration, bool) {
	dd, ok := r.DispatchDelay()
	if !ok {
		return 0, false
	}
	pd, _ := r.TurnPredecessorDelay()
	return dd - pd, true
}

// ScheduledLatency is End − TargetedStart for a finished request (successful
// or errored); undefined without an arrival schedule or for an incomplete
// request. Definition: metrics reference, Scheduled Latency.
func (r *Record) ScheduledLatency() (time.Duration, bool) {
	if !r.Finished() {
		return 0, false
	}
	return span(r.TargetedStart, r.End)
}

// TimeToLastRoundTrip is LastToken − the last sent packet (WebSocket only).
// Definition: metrics reference, Time To Last Round Trip.
func (r *Record) TimeToLastRoundTrip() (time.Duration, bool) {
	if r.Sent.Len() == 0 || r.Received.Len() == 0 {
		return 0, false
	}
	return span(r.Sent.Last(), r.LastToken)
}

// AverageRTT is mean(Received) − mean(Sent) (WebSocket only), truncated
// to the nanosecond. Definition: metrics reference, Average Round-Trip Time.
func (r *Record) AverageRTT() (time.Duration, bool) {
	if r.Sent.Len() == 0 || r.Received.Len() == 0 {
		return 0, false
	}
	ref := r.Sent.First()
	return time.Duration(r.Received.meanSince(ref) - r.Sent.meanSince(ref)), true
}

// AddChunk records a stream data event that arrived at t, after every one
// added before: the first one is FirstChunk, and each joins ChunkGaps.
func (r *Record) AddChunk(t time.Time) {
	if r.ChunkGaps == nil {
		r.ChunkGaps = &Gaps{}
		r.FirstChunk = t
	}
	r.ChunkGaps.Add(t)
}
