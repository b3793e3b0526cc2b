package exporter

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// Target is the static description of one probed target.
type Target struct {
	// Name is the configured target name: the target label.
	Name string
	// Model is the requested model: gen_ai.request.model and the model label.
	Model string
	// API is "chat" (gen_ai.operation.name chat), "completions"
	// (text_completion) or "realtime" (generate_content: audio in, text out).
	API string
	// Stream reports whether responses are requested as streams.
	Stream bool
	// Provider is gen_ai.provider.name; empty means "openai".
	Provider string
	// ServerAddress is the host of the base URL: server.address and the
	// server_address label; empty leaves server.address and server.port out.
	ServerAddress string
	// ServerPort is the port of the base URL (explicit or the scheme's
	// default): server.port; 0 leaves it out.
	ServerPort int
	// Objectives are the target's SLO objective sets; none when empty.
	Objectives []slo.Objective
	// ClosedLoop reports a strategy without an arrival schedule
	// (synchronous, concurrent, throughput): its requests have no dispatch
	// delay, turn delays or scheduled latency, so those series do not exist.
	ClosedLoop bool
	// Conversations reports that requests may be later turns of
	// conversations; without, the turn delay, think time and generation
	// delay histograms have no series (a single-turn request's turn delays
	// would only repeat its dispatch delay).
	Conversations bool
}

// Observer implements probe.Observer: it records every event into the
// instruments of a Metrics and keeps the per-target status shown by the
// status pages and /-/ready. It is safe for concurrent use and never blocks
// on anything but short critical sections. Events for a target not given to
// NewObserver are ignored.
type Observer struct {
	gens    *generations
	targets *registry[*targetState]
	retired *retired
	// errors receives a failure to start a new generation.
	errors *ErrorLog
	// changing serializes Add, Replace and Remove, so that a new
	// generation sees every removal it forgets.
	changing sync.Mutex
}

var _ probe.Observer = (*Observer)(nil)

// targetState is the Observer's view of one target.
type targetState struct {
	target Target
	attrs  *targetAttrs
	// objectives are the objective sets with their attribute sets.
	objectives []*objectiveAttrs
	// sets are the attribute sets the target can have, per syncSpecs entry.
	sets []int

	mu           sync.Mutex
	state        probe.TargetState
	waited       time.Duration
	reachedReady bool
	probed       bool
	counts       map[probe.Outcome]uint64
	probes       ProbeCounts
	recent       *ring
}

// NewObserver returns an Observer for targets recording into m. Every
// counter series is created at 0, and every target starts in state waiting.
// Use one Observer per Metrics; Close it before creating another.
func NewObserver(m *Metrics, targets []Target) (*Observer, error) {
	o := &Observer{gens: m.gens, targets: newRegistry[*targetState](), retired: m.retired, errors: m.errors}
	for _, t := range targets {
		if err := o.Add(t); err != nil {
			return nil, err
		}
	}
	if err := m.gens.watch(o); err != nil {
		return nil, err
	}
	return o, nil
}

// Add starts observing t: its counter series are created at 0 (a name
// observed before and removed continues its series, unless a new
// generation started in between, see Remove) and it starts in state
// waiting. A target already observed is an error.
func (o *Observer) Add(t Target) error {
	o.changing.Lock()
	defer o.changing.Unlock()
	if _, ok := o.targets.get(t.Name); ok {
		return fmt.Errorf("could not add target: target %q: duplicate name", t.Name)
	}
	ts, err := newTargetState(t)
	if err != nil {
		return err
	}
	in := o.gens.acquire()
	in.initSeries(ts)
	o.retired.restore(ts.target.Name, ts.identity())
	o.targets.put(t.Name, ts)
	o.gens.release()
	return nil
}

// Replace swaps the description of the target called t.Name for t and
// returns the old one. Its status (state, counts, recent requests) and its
// counter series continue; series whose identifying labels (model, API,
// server, objective sets) changed are retired from the exposition.
func (o *Observer) Replace(t Target) (Target, error) {
	o.changing.Lock()
	defer o.changing.Unlock()
	old, ok := o.targets.get(t.Name)
	if !ok {
		return Target{}, fmt.Errorf("could not replace target %q: not observed", t.Name)
	}
	ts, err := newTargetState(t)
	if err != nil {
		return Target{}, err
	}
	old.mu.Lock()
	ts.state, ts.waited, ts.reachedReady, ts.probed = old.state, old.waited, old.reachedReady, old.probed
	ts.counts, ts.probes, ts.recent = old.counts, old.probes, old.recent
	old.mu.Unlock()
	in := o.gens.acquire()
	in.initSeries(ts)
	gone := old.identity().minus(ts.identity())
	o.retired.retire(t.Name, gone)
	o.retired.restore(t.Name, ts.identity())
	o.targets.put(t.Name, ts)
	o.gens.release()
	if len(gone) > 0 {
		o.gens.retire(old.sets)
		o.renewIfDue()
	}
	return old.target, nil
}

// Remove stops observing the target called name: its gauges are no longer
// reported and its counter and histogram series leave the exposition
// (Prometheus and OTLP). Events for it are ignored from now on. Once the
// attribute sets of the targets removed or changed since the instruments'
// generation started exceed, in any instrument, half those the current
// targets can have plus retiredSlack, a new generation starts: the
// current targets' series continue in it with their values, the others
// are forgotten (a name added back later starts again from 0).
func (o *Observer) Remove(name string) {
	o.changing.Lock()
	defer o.changing.Unlock()
	ts, ok := o.targets.remove(name)
	if !ok {
		return
	}
	o.retired.retireTarget(name)
	o.gens.retire(ts.sets)
	o.renewIfDue()
}

// renewIfDue starts a new generation of the instruments when the series
// of removed and changed targets are due to be forgotten; a failure is
// handed to the error log and the current generation stays.
func (o *Observer) renewIfDue() {
	targets := o.targets.all()
	if !o.gens.due(targets) {
		return
	}
	if err := o.gens.renew(targets, o.retired); err != nil {
		o.errors.Handle(err)
	}
}

// newTargetState validates t and precomputes its attribute sets.
func newTargetState(t Target) (*targetState, error) {
	if err := validateTarget(t); err != nil {
		return nil, fmt.Errorf("could not add target: %w", err)
	}
	if t.Provider == "" {
		t.Provider = "openai"
	}
	return &targetState{
		target: t, attrs: newTargetAttrs(t), objectives: newObjectiveAttrs(t), sets: syncSets(&t), state: probe.StateWaiting,
		counts: map[probe.Outcome]uint64{}, probes: newProbeCounts(), recent: newRing(RecentPerTarget),
	}, nil
}

// target returns the description of the target called name, or nil when
// o is nil or does not know it.
func (o *Observer) target(name string) *Target {
	if o == nil {
		return nil
	}
	ts, ok := o.targets.get(name)
	if !ok {
		return nil
	}
	return &ts.target
}

// state returns the state of the target called name, nil when unknown.
func (o *Observer) state(name string) *targetState {
	ts, _ := o.targets.get(name)
	return ts
}

// validateTarget checks t's name, API and objective sets.
func validateTarget(t Target) error {
	switch {
	case t.Name == "":
		return errors.New("target name is empty")
	case !knownAPI(t.API):
		return fmt.Errorf("target %q: api %q is neither chat, completions nor realtime", t.Name, t.API)
	}
	return validateObjectives(t)
}

// initSeries creates every counter series of ts at 0 in in, so rate()
// works from the start.
func (in *instruments) initSeries(ts *targetState) {
	ctx := context.Background()
	for _, k := range initialRequestKeys() {
		in.requests.Add(ctx, 0, ts.attrs.requests[k])
	}
	for _, r := range probe.DropReasons {
		in.dropped.Add(ctx, 0, ts.attrs.drops[r])
	}
	in.scheduled.Add(ctx, 0, ts.attrs.target)
	in.inFlight.Add(ctx, 0, ts.attrs.target)
	in.initSLOSeries(ctx, ts)
}

// callback returns the gauge callback reporting into in (see observe).
func (o *Observer) callback(in *instruments) metric.Callback {
	return func(_ context.Context, obs metric.Observer) error { return o.observe(in, obs) }
}

// observe reports the gauges of in: one-hot state, start-up wait and info.
func (o *Observer) observe(in *instruments, obs metric.Observer) error {
	for _, ts := range o.targets.all() {
		ts.mu.Lock()
		state, waited := ts.state, ts.waited
		ts.mu.Unlock()
		for _, s := range probe.TargetStates {
			var v int64
			if s == state {
				v = 1
			}
			obs.ObserveInt64(in.targetState, v, ts.attrs.states[s])
		}
		obs.ObserveFloat64(in.startupWait, waited.Seconds(), ts.attrs.target)
		obs.ObserveInt64(in.targetInfo, 1, ts.attrs.info)
	}
	o.observeSLO(in, obs)
	return nil
}

// Close stops reporting the gauges. Counters and histograms keep their values.
func (o *Observer) Close() error {
	return o.gens.unwatch(o)
}

// Scheduled implements probe.Observer.
func (o *Observer) Scheduled(target string) {
	if ts := o.state(target); ts != nil {
		in := o.gens.acquire()
		defer o.gens.release()
		in.scheduled.Add(context.Background(), 1, ts.attrs.targetAdd...)
		ts.count(func(p *ProbeCounts) { p.Scheduled++ })
	}
}

// Dropped implements probe.Observer.
func (o *Observer) Dropped(target string, reason probe.DropReason) {
	if ts := o.state(target); ts != nil {
		in := o.gens.acquire()
		defer o.gens.release()
		in.dropped.Add(context.Background(), 1, ts.attrs.dropOpt(reason))
		ts.count(func(p *ProbeCounts) { p.Dropped[reason]++ })
	}
}

// Started implements probe.Observer.
func (o *Observer) Started(target string) {
	if ts := o.state(target); ts != nil {
		in := o.gens.acquire()
		defer o.gens.release()
		in.inFlight.Add(context.Background(), 1, ts.attrs.targetAdd...)
		ts.count(func(p *ProbeCounts) { p.Sent++ })
	}
}

// count updates the target's probe counts under its lock.
func (ts *targetState) count(f func(*ProbeCounts)) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	f(&ts.probes)
}

// State implements probe.Observer.
func (o *Observer) State(target string, state probe.TargetState, waited time.Duration) {
	ts := o.state(target)
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.state, ts.waited = state, waited
	if state == probe.StateReady {
		ts.reachedReady = true
	}
}

// Finished implements probe.Observer.
func (o *Observer) Finished(rec *probe.Record) {
	ts := o.state(rec.Target)
	if ts == nil {
		return
	}
	ctx := context.Background()
	in := o.gens.acquire()
	defer o.gens.release()
	in.inFlight.Add(ctx, -1, ts.attrs.targetAdd...)
	in.requests.Add(ctx, 1, ts.attrs.requestOpt(rec))
	in.recordGenAI(ctx, ts.attrs, ts.target.Stream, rec)
	in.recordLatencies(ctx, ts, rec)
	if ts.target.kind().httpPhases {
		in.recordPhases(ctx, ts.attrs, rec)
	}
	in.recordSLO(ctx, ts, rec)
	summary := summarize(rec)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.counts[rec.Outcome]++
	ts.probed = true
	ts.recent.push(summary)
}

// record adds d in seconds to h with opts when ok. opts is a slice so that
// a precomputed one (targetAttrs.genAIRec, targetRec) is passed without an
// allocation per measurement.
func record(ctx context.Context, h metric.Float64Histogram, d time.Duration, ok bool, opts []metric.RecordOption) {
	if ok {
		h.Record(ctx, d.Seconds(), opts...)
	}
}

// recordGenAI records the GenAI client metrics: duration for successful and
// errored requests, tokens and chunk timings for successful ones.
func (in *instruments) recordGenAI(ctx context.Context, a *targetAttrs, streamed bool, rec *probe.Record) {
	switch rec.Outcome {
	case probe.Errored:
		d, ok := rec.Duration()
		record(ctx, in.opDuration, d, ok, []metric.RecordOption{a.genAIErrorOpt(rec.ErrorType)})
	case probe.Successful:
		d, ok := rec.Duration()
		record(ctx, in.opDuration, d, ok, a.genAIRec)
		if rec.PromptTokensFrom != probe.TokensUnknown {
			in.tokenUsage.Record(ctx, int64(rec.PromptTokens), a.tokens[0])
		}
		if rec.OutputTokensFrom != probe.TokensUnknown {
			in.tokenUsage.Record(ctx, int64(rec.OutputTokens), a.tokens[1])
		}
		if rec.Stream && streamed {
			in.recordChunks(ctx, a, rec)
		}
	}
}

// recordChunks records time to first chunk and every gap between consecutive chunks.
func (in *instruments) recordChunks(ctx context.Context, a *targetAttrs, rec *probe.Record) {
	d, ok := rec.TimeToFirstChunk()
	record(ctx, in.ttfc, d, ok, a.genAIRec)
	rec.ChunkGaps.Each(func(d time.Duration) { record(ctx, in.tpoc, d, true, a.genAIRec) })
}

// recordLatencies records the reference's per-request quantities: dispatch
// delay and its split into turn predecessor and turn scheduling delay for any
// outcome, the others for successful requests, each where defined and only
// for targets that can have it (series exist only where they can carry
// data, as SeriesBudget counts them): no schedule quantities under a
// closed-loop strategy, turn delays only with conversations, TTFT, TTFOT
// and ITL only when streamed, round-trip metrics only for realtime targets.
func (in *instruments) recordLatencies(ctx context.Context, ts *targetState, rec *probe.Record) {
	a, t := ts.attrs, &ts.target
	if !t.ClosedLoop {
		d, ok := rec.DispatchDelay()
		record(ctx, in.dispatchDelay, d, ok, a.targetRec)
		if t.Conversations {
			in.recordTurnDelays(ctx, a, rec)
		}
	}
	if rec.Outcome != probe.Successful {
		return
	}
	if t.Stream {
		d, ok := rec.TTFT()
		record(ctx, in.ttft, d, ok, a.targetRec)
		d, ok = rec.TTFOT()
		record(ctx, in.ttfot, d, ok, a.targetRec)
		d, ok = rec.ITL()
		record(ctx, in.itl, d, ok, a.targetRec)
	}
	d, ok := rec.TPOT()
	record(ctx, in.tpot, d, ok, a.targetRec)
	if !t.ClosedLoop {
		d, ok = rec.ScheduledLatency()
		record(ctx, in.scheduledLatency, d, ok, a.targetRec)
	}
	if t.kind().roundTrips {
		d, ok = rec.TimeToLastRoundTrip()
		record(ctx, in.lastRoundTrip, d, ok, a.targetRec)
		d, ok = rec.AverageRTT()
		record(ctx, in.averageRTT, d, ok, a.targetRec)
	}
}

// recordPhases records the HTTP phases that happened, for any outcome.
func (in *instruments) recordPhases(ctx context.Context, a *targetAttrs, rec *probe.Record) {
	h := &rec.HTTP
	for _, p := range []struct {
		name       string
		start, end time.Time
	}{
		{phaseDNS, h.DNSStart, h.DNSDone},
		{phaseConnect, h.ConnectStart, h.ConnectDone},
		{phaseTLS, h.TLSStart, h.TLSDone},
		{phaseFirstByte, rec.RequestStart, h.FirstByte},
	} {
		if !p.start.IsZero() && !p.end.IsZero() {
			record(ctx, in.phase, p.end.Sub(p.start), true, []metric.RecordOption{a.phases[p.name]})
		}
	}
}
