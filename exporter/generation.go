package exporter

import (
	"context"
	"fmt"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// retiredSlack is how many attribute sets of one instrument that removed
// or changed targets may leave in the current generation beyond half the
// attribute sets the current targets can have, before a new generation
// starts (see generations).
const retiredSlack = 16

// generation is one meter provider holding the per-target instruments,
// read by its own manual reader, with the registration of the Observer's
// gauge callback on it.
type generation struct {
	provider *sdkmetric.MeterProvider
	reader   *sdkmetric.ManualReader
	meter    metric.Meter
	inst     *instruments
	reg      metric.Registration
}

// newGeneration creates a meter provider keeping at most limit attribute
// sets per instrument (0: the SDK's default) and the instruments on it,
// with extra boundaries (validated) and scope version.
func newGeneration(limit int, version string, extra map[string][]float64) (*generation, error) {
	reader := sdkmetric.NewManualReader()
	opts := []sdkmetric.Option{sdkmetric.WithReader(reader), sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter)}
	if limit > 0 {
		opts = append(opts, sdkmetric.WithCardinalityLimit(limit))
	}
	p := sdkmetric.NewMeterProvider(opts...)
	g := &generation{provider: p, reader: reader, meter: p.Meter(scopeName, metric.WithInstrumentationVersion(version))}
	var err error
	if g.inst, err = newInstruments(g.meter, extra); err != nil {
		return nil, joinShutdown(context.Background(), p, err)
	}
	return g, nil
}

// generations holds the per-target instruments (every histogram, counter
// and gauge that carries a target label, windows aside) on a meter
// provider of their own, which is replaced by a new one, a generation,
// once removed and changed targets have left too many attribute sets in
// it: the SDK forgets no attribute set of a synchronous instrument, so
// without a new generation, targets renamed over reloads would fill the
// cardinality limit. What the old generation counted for the series of
// the current targets is carried: every collection adds it to the new
// generation's sums and histograms, so they continue without a reset.
// Both export paths read the generation through Produce. It is safe for
// concurrent use: measurements hold the generation (acquire, release)
// while a switch waits for them.
type generations struct {
	newGen func() (*generation, error)

	mu      sync.RWMutex
	cur     *generation
	carried []metricdata.Metrics
	// observer is the Observer whose gauge callback each generation
	// registers; nil without one.
	observer *Observer
	renewals int

	countMu sync.Mutex
	// retired counts, per syncSpecs entry, the attribute sets removed and
	// changed targets may have left in the current generation.
	retired []int
}

// newGenerations starts the first generation from newGen.
func newGenerations(newGen func() (*generation, error)) (*generations, error) {
	g, err := newGen()
	if err != nil {
		return nil, err
	}
	return &generations{newGen: newGen, cur: g, retired: make([]int, len(syncSpecs))}, nil
}

// acquire returns the instruments of the current generation, which stays
// current until release.
func (g *generations) acquire() *instruments {
	g.mu.RLock()
	return g.cur.inst
}

// release lets the generation acquire returned be replaced.
func (g *generations) release() { g.mu.RUnlock() }

// Produce implements sdkmetric.Producer: the current generation's data
// with what earlier generations carried added to it.
func (g *generations) Produce(ctx context.Context) ([]metricdata.ScopeMetrics, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var rm metricdata.ResourceMetrics
	if err := g.cur.reader.Collect(ctx, &rm); err != nil {
		return nil, fmt.Errorf("could not collect the per-target instruments: %w", err)
	}
	if len(g.carried) == 0 {
		return rm.ScopeMetrics, nil
	}
	if len(rm.ScopeMetrics) == 0 {
		rm.ScopeMetrics = []metricdata.ScopeMetrics{{}}
		rm.ScopeMetrics[0].Scope.Name = scopeName
	}
	sm := &rm.ScopeMetrics[0]
	sm.Metrics = addMetrics(sm.Metrics, g.carried, nil)
	return rm.ScopeMetrics, nil
}

// watch registers o's gauge callback on every generation from now on,
// in place of another Observer's.
func (g *generations) watch(o *Observer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.swapObserver(o)
}

// unwatch unregisters o's gauge callback, if it is the one registered.
func (g *generations) unwatch(o *Observer) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.observer != o {
		return nil
	}
	return g.swapObserver(nil)
}

// swapObserver replaces the registered gauge callback by o's (none when
// o is nil); g.mu is held.
func (g *generations) swapObserver(o *Observer) error {
	if g.cur.reg != nil {
		if err := g.cur.reg.Unregister(); err != nil {
			return fmt.Errorf("could not unregister gauge callback: %w", err)
		}
		g.cur.reg = nil
	}
	g.observer = o
	return g.register(g.cur)
}

// register registers the observer's gauge callback on gen.
func (g *generations) register(gen *generation) error {
	if g.observer == nil {
		return nil
	}
	in := gen.inst
	observables := append([]metric.Observable{in.targetState, in.targetInfo, in.startupWait}, in.slo.gauges()...)
	reg, err := gen.meter.RegisterCallback(g.observer.callback(in), observables...)
	if err != nil {
		return fmt.Errorf("could not register gauge callback: %w", err)
	}
	gen.reg = reg
	return nil
}

// retire counts the attribute sets (per syncSpecs entry) a target removed
// or changed may have left in the current generation.
func (g *generations) retire(sets []int) {
	g.countMu.Lock()
	defer g.countMu.Unlock()
	for i, n := range sets {
		g.retired[i] += n
	}
}

// due reports whether, for some instrument, the attribute sets retired
// since the current generation started exceed half those targets can
// have plus retiredSlack.
func (g *generations) due(targets []*targetState) bool {
	g.countMu.Lock()
	defer g.countMu.Unlock()
	for i := range syncSpecs {
		live := 0
		for _, ts := range targets {
			live += ts.sets[i]
		}
		if g.retired[i] > live/2+retiredSlack {
			return true
		}
	}
	return false
}

// renew starts a new generation: it creates every counter series of
// targets at 0 in it, carries the old generation's sums and histograms
// (with what it carried) whose attribute sets hide does not retire, then
// forgets the old generation and what hide retired.
func (g *generations) renew(targets []*targetState, hide *retired) error {
	next, err := g.newGen()
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var rm metricdata.ResourceMetrics
	if err := g.cur.reader.Collect(context.Background(), &rm); err != nil {
		return joinShutdown(context.Background(), next.provider,
			fmt.Errorf("could not collect the per-target instruments: %w", err))
	}
	if err := g.register(next); err != nil {
		return joinShutdown(context.Background(), next.provider, err)
	}
	keep := func(set attribute.Set) bool { return !hide.hiddenSet(set) }
	carried := addMetrics(carriable(rm.ScopeMetrics, keep), g.carried, keep)
	for _, ts := range targets {
		next.inst.initSeries(ts)
	}
	old := g.cur
	g.cur, g.carried = next, carried
	g.renewals++
	hide.reset()
	g.countMu.Lock()
	clear(g.retired)
	g.countMu.Unlock()
	return old.provider.Shutdown(context.Background())
}

// shutdown stops the current generation.
func (g *generations) shutdown(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.cur.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("could not shut down the per-target instruments: %w", err)
	}
	return nil
}

// syncSpecs are the synchronous per-target instruments, whose attribute
// sets the SDK never forgets: every histogram, the counters and the
// in-flight up-down counter.
var syncSpecs = append(append([]spec{}, histogramSpecs...),
	specRequests, specScheduled, specDropped, specInFlight, specSLOEvaluated, specSLOConforming, specSLONonConform)

// syncSets returns the attribute sets t can have per syncSpecs entry.
func syncSets(t *Target) []int {
	out := make([]int, len(syncSpecs))
	for i, s := range syncSpecs {
		out[i] = s.Sets(t)
	}
	return out
}
