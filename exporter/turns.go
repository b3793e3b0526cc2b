package exporter

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/llmprober/llmprober/probe"
)

// Instruments of conversations and the scheduler's own measurements.
const (
	// InstrumentTurnPredecessorDelay is the turn predecessor delay histogram (s).
	InstrumentTurnPredecessorDelay = "llmprober.turn_predecessor_delay"
	// InstrumentTurnSchedulingDelay is the turn scheduling delay histogram (s).
	InstrumentTurnSchedulingDelay = "llmprober.turn_scheduling_delay"
	// InstrumentThinkTime is the think time histogram (s).
	InstrumentThinkTime = "llmprober.think_time"
	// InstrumentGenerationDelay is the per-conversation generation delay histogram (s).
	InstrumentGenerationDelay = "llmprober.generation_delay"
)

// Bucket boundaries of think time (configured waits of seconds to minutes)
// and generation delay (microseconds when the workload keeps up).
var (
	thinkBounds      = []float64{0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 15, 20, 30, 60, 120}
	generationBounds = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}
)

// turnInstruments are the histograms of turn delays, think time and
// generation delay.
type turnInstruments struct {
	predecessor, scheduling, think, generation metric.Float64Histogram
}

// turnInstruments creates the turn histograms.
func (b *builder) turnInstruments() turnInstruments {
	return turnInstruments{
		predecessor: b.floatHistogram(InstrumentTurnPredecessorDelay),
		scheduling:  b.floatHistogram(InstrumentTurnSchedulingDelay),
		think:       b.floatHistogram(InstrumentThinkTime),
		generation:  b.floatHistogram(InstrumentGenerationDelay),
	}
}

var _ probe.SchedulerObserver = (*Observer)(nil)

// recordTurnDelays records the split of rec's dispatch delay where it is
// defined: requests with an arrival schedule, whatever their outcome.
func (in *instruments) recordTurnDelays(ctx context.Context, a *targetAttrs, rec *probe.Record) {
	d, ok := rec.TurnPredecessorDelay()
	record(ctx, in.turns.predecessor, d, ok, a.targetRec)
	d, ok = rec.TurnSchedulingDelay()
	record(ctx, in.turns.scheduling, d, ok, a.targetRec)
}

// GenerationDelay implements probe.SchedulerObserver; it records only for
// targets with conversations.
func (o *Observer) GenerationDelay(target string, d time.Duration) {
	if ts := o.state(target); ts != nil && ts.target.Conversations {
		in := o.gens.acquire()
		defer o.gens.release()
		in.turns.generation.Record(context.Background(), d.Seconds(), ts.attrs.target)
	}
}

// ThinkTime implements probe.SchedulerObserver; it records only for targets
// with conversations.
func (o *Observer) ThinkTime(target string, d time.Duration) {
	if ts := o.state(target); ts != nil && ts.target.Conversations {
		in := o.gens.acquire()
		defer o.gens.release()
		in.turns.think.Record(context.Background(), d.Seconds(), ts.attrs.target)
	}
}
