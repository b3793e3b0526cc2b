package window

// Metric is one summarized per-request quantity.
type Metric int

// The summarized quantities, in the order they are reported.
const (
	// RequestLatency is end − request start, seconds; finished requests.
	RequestLatency Metric = iota
	// TTFT is the time to first token, seconds; streamed requests with a token.
	TTFT
	// TTFOT is the time to first output token, seconds; streamed requests
	// with visible output.
	TTFOT
	// ITL is the inter-token latency, seconds, weighted by output tokens − 1.
	ITL
	// TPOT is the time per output token, seconds, weighted by output tokens.
	TPOT
	// DispatchDelay is request start − targeted start, seconds; requests
	// with an arrival schedule.
	DispatchDelay
	// ScheduledLatency is end − targeted start, seconds; finished requests
	// with an arrival schedule.
	ScheduledLatency
	// TimeToLastRoundTrip is the last received token − the last sent
	// packet, seconds; realtime WebSocket requests with a token.
	TimeToLastRoundTrip
	// AverageRTT is the mean of the received token times − the mean of the
	// sent packet times, seconds; realtime WebSocket requests with a token.
	AverageRTT
	// PromptTokens is the prompt length in tokens, where known.
	PromptTokens
	// OutputTokens is the output length in tokens, where known.
	OutputTokens
	// StreamingIterations is the number of token events of a streamed request.
	StreamingIterations

	numMetrics = iota
)

// metricInfo describes one Metric.
type metricInfo struct {
	name, unit string
	weighted   bool
}

var metricInfos = [numMetrics]metricInfo{
	RequestLatency:      {"request_latency", UnitSeconds, false},
	TTFT:                {"time_to_first_token", UnitSeconds, false},
	TTFOT:               {"time_to_first_output_token", UnitSeconds, false},
	ITL:                 {"inter_token_latency", UnitSeconds, true},
	TPOT:                {"time_per_output_token", UnitSeconds, true},
	DispatchDelay:       {"dispatch_delay", UnitSeconds, false},
	ScheduledLatency:    {"scheduled_latency", UnitSeconds, false},
	TimeToLastRoundTrip: {"time_to_last_round_trip", UnitSeconds, false},
	AverageRTT:          {"average_round_trip_time", UnitSeconds, false},
	PromptTokens:        {"prompt_tokens", UnitTokens, false},
	OutputTokens:        {"output_tokens", UnitTokens, false},
	StreamingIterations: {"streaming_iterations", UnitIterations, false},
}

// Units of the metrics.
const (
	// UnitSeconds: durations.
	UnitSeconds = "seconds"
	// UnitTokens: token counts.
	UnitTokens = "tokens"
	// UnitIterations: streaming iteration counts.
	UnitIterations = "iterations"
)

// Metrics returns every Metric in reporting order.
func Metrics() []Metric {
	ms := make([]Metric, numMetrics)
	for i := range ms {
		ms[i] = Metric(i)
	}
	return ms
}

// String is the metric's snake_case name, used as a label value and JSON
// key: "request_latency", "time_to_first_token", …
func (m Metric) String() string {
	if !m.valid() {
		return "unknown"
	}
	return metricInfos[m].name
}

// Unit is "seconds", "tokens" or "iterations".
func (m Metric) Unit() string {
	if !m.valid() {
		return ""
	}
	return metricInfos[m].unit
}

// Weighted reports whether the metric is token-weighted (ITL, TPOT): its
// count is the summed weight and it has no intervals.
func (m Metric) Weighted() bool { return m.valid() && metricInfos[m].weighted }

func (m Metric) valid() bool { return m >= 0 && m < numMetrics }
