package exporter

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

	"github.com/llmprober/llmprober/probe"
)

// OpenTelemetry instrument names. The Prometheus names are derived from them
// by the exporter: dots become underscores, the unit "s" adds "_seconds",
// counters get "_total", and annotation units such as "{token}" add nothing.
const (
	// InstrumentOperationDuration is the GenAI request duration histogram (s).
	InstrumentOperationDuration = "gen_ai.client.operation.duration"
	// InstrumentTokenUsage is the GenAI token count histogram ({token}).
	InstrumentTokenUsage = "gen_ai.client.token.usage"
	// InstrumentTimeToFirstChunk is the GenAI time-to-first-chunk histogram (s).
	InstrumentTimeToFirstChunk = "gen_ai.client.operation.time_to_first_chunk"
	// InstrumentTimePerOutputChunk is the GenAI chunk-gap histogram (s).
	InstrumentTimePerOutputChunk = "gen_ai.client.operation.time_per_output_chunk"
	// InstrumentTTFT is the time-to-first-token histogram (s).
	InstrumentTTFT = "llmprober.time_to_first_token"
	// InstrumentTTFOT is the time-to-first-output-token histogram (s).
	InstrumentTTFOT = "llmprober.time_to_first_output_token"
	// InstrumentITL is the per-request inter-token latency histogram (s).
	InstrumentITL = "llmprober.inter_token_latency"
	// InstrumentTPOT is the per-request time-per-output-token histogram (s).
	InstrumentTPOT = "llmprober.time_per_output_token"
	// InstrumentDispatchDelay is the dispatch delay histogram (s).
	InstrumentDispatchDelay = "llmprober.dispatch_delay"
	// InstrumentScheduledLatency is the scheduled latency histogram (s).
	InstrumentScheduledLatency = "llmprober.scheduled_latency"
	// InstrumentTimeToLastRoundTrip is the time-to-last-round-trip histogram
	// of WebSocket requests (s).
	InstrumentTimeToLastRoundTrip = "llmprober.time_to_last_round_trip"
	// InstrumentAverageRTT is the average round-trip time histogram of
	// WebSocket requests (s).
	InstrumentAverageRTT = "llmprober.average_round_trip_time"
	// InstrumentHTTPPhaseDuration is the HTTP connection phase histogram (s).
	InstrumentHTTPPhaseDuration = "llmprober.http.phase_duration"
	// InstrumentRequests counts finished requests by outcome and error type.
	InstrumentRequests = "llmprober.requests"
	// InstrumentProbesScheduled counts requests that became due.
	InstrumentProbesScheduled = "llmprober.probes.scheduled"
	// InstrumentProbesDropped counts due requests that were never sent, by reason.
	InstrumentProbesDropped = "llmprober.probes.dropped"
	// InstrumentInFlight is the number of requests in flight.
	InstrumentInFlight = "llmprober.requests.in_flight"
	// InstrumentTargetState is the one-hot start-up state per target.
	InstrumentTargetState = "llmprober.target.state"
	// InstrumentStartupWait is the time a target spent in its start-up gate (s).
	InstrumentStartupWait = "llmprober.target.startup_wait"
	// InstrumentTargetInfo is 1 per target, carrying its static description.
	InstrumentTargetInfo = "llmprober.target.info"
)

// spec describes one instrument. Boundaries, for histograms only, are the
// default explicit bucket boundaries in the instrument's unit. Sets is the
// number of attribute sets the instrument can have for target t: its
// worst case, every series of t that can ever carry data (SeriesBudget).
type spec struct {
	Name, Unit, Description string
	Boundaries              []float64
	Sets                    func(t *Target) int
}

// Attribute sets per target of the instruments, for spec.Sets.
var (
	always   = func(*Target) int { return 1 }
	onStream = func(t *Target) int { return b2i(t.Stream) }
	onSched  = func(t *Target) int { return b2i(!t.ClosedLoop) }
	onTurns  = func(t *Target) int { return b2i(!t.ClosedLoop && t.Conversations) }
	onConv   = func(t *Target) int { return b2i(t.Conversations) }
	onRT     = func(t *Target) int { return b2i(t.realtime()) }
	// A successful request, or an errored one of any error type or of
	// none (errorTypeOther).
	byOutcome = func(*Target) int { return 1 + len(probe.ErrorTypes) + 1 }
	byToken   = func(*Target) int { return 2 }
	byPhase   = func(t *Target) int { return len(phases) * b2i(!t.realtime()) }
)

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Default bucket boundaries. The GenAI ones are the conventions' advice; the
// others are chosen for probe latencies, finest where objectives usually sit.
var (
	genAIDurationBounds = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	genAITokenBounds    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	latencyBounds       = []float64{
		0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.75,
		1, 1.5, 2, 2.5, 5, 10, 20, 30, 60, 120,
	}
	perTokenBounds = []float64{
		0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.075,
		0.1, 0.2, 0.5, 1, 2.5,
	}
	dispatchBounds = []float64{
		0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
		0.1, 0.25, 0.5, 1, 2.5, 5, 10,
	}
	phaseBounds = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10}
	// roundTripBounds start at 0: a round-trip metric is negative when the
	// last (or the average) token came before the last (average) packet,
	// as when the audio ends in silence; such values land in le="0", so
	// histogram_quantile reports them as 0 instead of interpolating them
	// into the first positive bucket.
	roundTripBounds = append([]float64{0}, latencyBounds...)
	// chunkGapBounds are the record's chunk gap buckets (the conventions'
	// advice): the record keeps the gaps per bucket, not one by one, and
	// replays them into this histogram with the same bucket counts.
	chunkGapBounds = seconds(probe.ChunkGapBounds)
)

// seconds converts durations to seconds.
func seconds(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Seconds()
	}
	return out
}

// histogramSpecs is the table of every histogram: name, unit, description
// and default boundaries. ExtraBoundaries keys must name one of these.
var histogramSpecs = []spec{
	{InstrumentOperationDuration, genaiconv.ClientOperationDuration{}.Unit(),
		genaiconv.ClientOperationDuration{}.Description(), genAIDurationBounds, byOutcome},
	{InstrumentTokenUsage, genaiconv.ClientTokenUsage{}.Unit(),
		genaiconv.ClientTokenUsage{}.Description(), genAITokenBounds, byToken},
	{InstrumentTimeToFirstChunk, genaiconv.ClientOperationTimeToFirstChunk{}.Unit(),
		genaiconv.ClientOperationTimeToFirstChunk{}.Description(), genAIDurationBounds, onStream},
	{InstrumentTimePerOutputChunk, genaiconv.ClientOperationTimePerOutputChunk{}.Unit(),
		genaiconv.ClientOperationTimePerOutputChunk{}.Description(), chunkGapBounds, onStream},
	{InstrumentTTFT, "s", "Time to first token: first token event minus request start, for successful streamed requests.", latencyBounds, onStream},
	{InstrumentTTFOT, "s", "Time to first output token: first event with visible content minus request start, for successful streamed requests.", latencyBounds, onStream},
	{InstrumentITL, "s", "Inter-token latency per request: (last token - first token) / (output tokens - 1), for successful requests with at least 2 output tokens.", perTokenBounds, onStream},
	{InstrumentTPOT, "s", "Time per output token per request: (last token - request start) / output tokens, for successful requests with at least 1 output token.", perTokenBounds, always},
	{InstrumentDispatchDelay, "s", "Dispatch delay: request start minus targeted start, for requests with an arrival schedule.", dispatchBounds, onSched},
	{InstrumentScheduledLatency, "s", "Scheduled latency: response end minus targeted start, for successful requests with an arrival schedule.", latencyBounds, onSched},
	{InstrumentTimeToLastRoundTrip, "s", "Time to last round trip: last received token minus last sent audio packet, for successful realtime WebSocket requests; negative when the last token came first.", roundTripBounds, onRT},
	{InstrumentAverageRTT, "s", "Average round-trip time: mean of the received token times minus mean of the sent audio packet times, for successful realtime WebSocket requests; negative when the tokens came first on average.", roundTripBounds, onRT},
	{InstrumentHTTPPhaseDuration, "s", "Duration of an HTTP connection phase (dns, connect, tls when they happened; first_byte from request start).", phaseBounds, byPhase},
	{InstrumentTurnPredecessorDelay, "s", "Turn predecessor delay: the part of the dispatch delay spent waiting for the previous turn of the conversation, still running after the targeted start; 0 without one. Requests with an arrival schedule, targets with conversations.", dispatchBounds, onTurns},
	{InstrumentTurnSchedulingDelay, "s", "Turn scheduling delay: dispatch delay minus turn predecessor delay (think time past the target, queueing). Requests with an arrival schedule, targets with conversations.", dispatchBounds, onTurns},
	{InstrumentThinkTime, "s", "Think time applied between the end of a turn and the start of the next, per later turn of a conversation.", thinkBounds, onConv},
	{InstrumentGenerationDelay, "s", "Generation delay: time the workload took to produce a conversation and its requests, once per conversation, for targets with conversations.", generationBounds, onConv},
}

// Specs of the counters and gauges.
var (
	specRequests = spec{Name: InstrumentRequests, Unit: "{request}", Description: "Finished requests by outcome and, for errored and incomplete ones, error type.",
		Sets: func(*Target) int { return len(initialRequestKeys()) + 1 }}
	specScheduled = spec{Name: InstrumentProbesScheduled, Unit: "{request}", Description: "Requests that became due according to the schedule.", Sets: always}
	specDropped   = spec{Name: InstrumentProbesDropped, Unit: "{request}", Description: "Due requests that were never sent, by reason.",
		Sets: func(*Target) int { return len(probe.DropReasons) }}
	specInFlight    = spec{Name: InstrumentInFlight, Unit: "{request}", Description: "Requests currently in flight.", Sets: always}
	specTargetState = spec{Name: InstrumentTargetState, Description: "Start-up state of the target: 1 for the current state, 0 for the others.",
		Sets: func(*Target) int { return len(probe.TargetStates) }}
	specStartupWait  = spec{Name: InstrumentStartupWait, Unit: "s", Description: "Time the target has spent waiting in its start-up gate, as of its last state change.", Sets: always}
	specTargetInfo   = spec{Name: InstrumentTargetInfo, Description: "Static description of the target; always 1.", Sets: always}
	errUnknownBounds = errors.New("not a histogram")
)

// histogramSpec returns the spec of the histogram called name.
func histogramSpec(name string) (spec, bool) {
	i := slices.IndexFunc(histogramSpecs, func(s spec) bool { return s.Name == name })
	if i < 0 {
		return spec{}, false
	}
	return histogramSpecs[i], true
}

// validateExtraBoundaries checks that every key names a histogram other
// than the chunk gap one (whose boundaries are the records' buckets) and
// every boundary is finite and not negative.
func validateExtraBoundaries(extra map[string][]float64) error {
	for name, bounds := range extra {
		if _, ok := histogramSpec(name); !ok {
			return fmt.Errorf("extra boundaries for %q: %w", name, errUnknownBounds)
		}
		if name == InstrumentTimePerOutputChunk && len(bounds) > 0 {
			return fmt.Errorf("extra boundaries for %q: its boundaries are the records' chunk gap buckets", name)
		}
		for _, b := range bounds {
			if math.IsNaN(b) || math.IsInf(b, 0) || b < 0 {
				return fmt.Errorf("extra boundary %v for %q: must be finite and not negative", b, name)
			}
		}
	}
	return nil
}

// mergeBoundaries returns the union of a and b, sorted, without duplicates.
func mergeBoundaries(a, b []float64) []float64 {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// instruments holds every instrument the Observer records into.
type instruments struct {
	opDuration, ttfc, tpoc          metric.Float64Histogram
	tokenUsage                      metric.Int64Histogram
	ttft, ttfot, itl, tpot          metric.Float64Histogram
	dispatchDelay, scheduledLatency metric.Float64Histogram
	lastRoundTrip, averageRTT       metric.Float64Histogram
	phase                           metric.Float64Histogram
	turns                           turnInstruments
	requests, scheduled, dropped    metric.Int64Counter
	inFlight                        metric.Int64UpDownCounter
	targetState, targetInfo         metric.Int64ObservableGauge
	startupWait                     metric.Float64ObservableGauge
	slo                             sloInstruments
}

// builder creates instruments and keeps the first error.
type builder struct {
	meter metric.Meter
	extra map[string][]float64
	err   error
}

// fail records a creation error for name.
func (b *builder) fail(name string, err error) {
	if err != nil && b.err == nil {
		b.err = fmt.Errorf("could not create instrument %s: %w", name, err)
	}
}

// bounds returns the merged boundaries of the histogram called name.
func (b *builder) bounds(name string) []float64 {
	s, _ := histogramSpec(name)
	return mergeBoundaries(s.Boundaries, b.extra[name])
}

// floatHistogram creates the histogram called name from its spec.
func (b *builder) floatHistogram(name string) metric.Float64Histogram {
	s, _ := histogramSpec(name)
	h, err := b.meter.Float64Histogram(name, metric.WithUnit(s.Unit), metric.WithDescription(s.Description),
		metric.WithExplicitBucketBoundaries(b.bounds(name)...))
	b.fail(name, err)
	return h
}

// intHistogram creates the integer histogram called name from its spec.
func (b *builder) intHistogram(name string) metric.Int64Histogram {
	s, _ := histogramSpec(name)
	h, err := b.meter.Int64Histogram(name, metric.WithUnit(s.Unit), metric.WithDescription(s.Description),
		metric.WithExplicitBucketBoundaries(b.bounds(name)...))
	b.fail(name, err)
	return h
}

// counter creates a monotonic counter from s.
func (b *builder) counter(s spec) metric.Int64Counter {
	c, err := b.meter.Int64Counter(s.Name, metric.WithUnit(s.Unit), metric.WithDescription(s.Description))
	b.fail(s.Name, err)
	return c
}

// newInstruments creates every instrument on meter; extra must have been validated.
func newInstruments(meter metric.Meter, extra map[string][]float64) (*instruments, error) {
	b := &builder{meter: meter, extra: extra}
	in := &instruments{
		opDuration:       b.floatHistogram(InstrumentOperationDuration),
		tokenUsage:       b.intHistogram(InstrumentTokenUsage),
		ttfc:             b.floatHistogram(InstrumentTimeToFirstChunk),
		tpoc:             b.floatHistogram(InstrumentTimePerOutputChunk),
		ttft:             b.floatHistogram(InstrumentTTFT),
		ttfot:            b.floatHistogram(InstrumentTTFOT),
		itl:              b.floatHistogram(InstrumentITL),
		tpot:             b.floatHistogram(InstrumentTPOT),
		dispatchDelay:    b.floatHistogram(InstrumentDispatchDelay),
		scheduledLatency: b.floatHistogram(InstrumentScheduledLatency),
		lastRoundTrip:    b.floatHistogram(InstrumentTimeToLastRoundTrip),
		averageRTT:       b.floatHistogram(InstrumentAverageRTT),
		phase:            b.floatHistogram(InstrumentHTTPPhaseDuration),
		turns:            b.turnInstruments(),
		requests:         b.counter(specRequests),
		scheduled:        b.counter(specScheduled),
		dropped:          b.counter(specDropped),
		slo:              b.sloInstruments(),
	}
	b.gauges(in)
	return in, b.err
}

// gauges creates the up-down counter and the observable gauges of in.
func (b *builder) gauges(in *instruments) {
	var err error
	in.inFlight, err = b.meter.Int64UpDownCounter(specInFlight.Name,
		metric.WithUnit(specInFlight.Unit), metric.WithDescription(specInFlight.Description))
	b.fail(specInFlight.Name, err)
	in.targetState, err = b.meter.Int64ObservableGauge(specTargetState.Name, metric.WithDescription(specTargetState.Description))
	b.fail(specTargetState.Name, err)
	in.targetInfo, err = b.meter.Int64ObservableGauge(specTargetInfo.Name, metric.WithDescription(specTargetInfo.Description))
	b.fail(specTargetInfo.Name, err)
	in.startupWait, err = b.meter.Float64ObservableGauge(specStartupWait.Name,
		metric.WithUnit(specStartupWait.Unit), metric.WithDescription(specStartupWait.Description))
	b.fail(specStartupWait.Name, err)
}
