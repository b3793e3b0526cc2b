package exporter

import (
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// deltaConverter turns the per-target counters and histograms, which the
// generations produce cumulative whatever the OTLP exporter asks for,
// into deltas since the previous export, for an exporter that asks for
// delta temporality (OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// delta or lowmemory): what the SDK would have sent. A delta histogram
// carries no minimum and maximum. It remembers the last cumulative point
// of each series of the previous export only, so it holds the current
// configuration's series, and a series whose value fell (a name added
// back after a new generation) starts again. It is safe for concurrent
// use.
type deltaConverter struct {
	counters, histograms bool

	mu   sync.Mutex
	ints deltaState[int64]
	flts deltaState[float64]
}

// deltaKey names one series: its instrument and attributes.
type deltaKey struct {
	name  string
	attrs attribute.Distinct
}

// deltaState is the previous export's cumulative points of one number type.
type deltaState[N int64 | float64] struct {
	sums  map[deltaKey]metricdata.DataPoint[N]
	hists map[deltaKey]metricdata.HistogramDataPoint[N]
}

// newDeltaState returns an empty state.
func newDeltaState[N int64 | float64]() deltaState[N] {
	return deltaState[N]{sums: map[deltaKey]metricdata.DataPoint[N]{}, hists: map[deltaKey]metricdata.HistogramDataPoint[N]{}}
}

// perTargetNames are the instruments the generations produce cumulative.
var perTargetNames = func() map[string]bool {
	out := map[string]bool{}
	for _, s := range syncSpecs {
		out[s.Name] = true
	}
	return out
}()

// newDeltaConverter returns a converter for exp's temporality, nil when
// exp wants cumulative counters and histograms.
func newDeltaConverter(exp sdkmetric.Exporter) *deltaConverter {
	d := &deltaConverter{
		counters:   exp.Temporality(sdkmetric.InstrumentKindCounter) == metricdata.DeltaTemporality,
		histograms: exp.Temporality(sdkmetric.InstrumentKindHistogram) == metricdata.DeltaTemporality,
	}
	if !d.counters && !d.histograms {
		return nil
	}
	return d
}

// convert replaces, in rm, the cumulative points of the per-target
// counters (monotonic sums) and histograms by their deltas.
func (d *deltaConverter) convert(rm *metricdata.ResourceMetrics) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ints, flts := newDeltaState[int64](), newDeltaState[float64]()
	for i := range rm.ScopeMetrics {
		ms := rm.ScopeMetrics[i].Metrics
		for j := range ms {
			if perTargetNames[ms[j].Name] {
				ms[j].Data = d.convertData(ms[j].Name, ms[j].Data, &ints, &flts)
			}
		}
	}
	d.ints, d.flts = ints, flts
}

// convertData converts one instrument's data, recording its cumulative
// points in next.
func (d *deltaConverter) convertData(name string, data metricdata.Aggregation, ints *deltaState[int64],
	flts *deltaState[float64]) metricdata.Aggregation {
	switch a := data.(type) {
	case metricdata.Sum[int64]:
		if d.counters && a.IsMonotonic && a.Temporality == metricdata.CumulativeTemporality {
			a.DataPoints, a.Temporality = deltaSums(name, a.DataPoints, d.ints.sums, ints.sums), metricdata.DeltaTemporality
		}
		return a
	case metricdata.Sum[float64]:
		if d.counters && a.IsMonotonic && a.Temporality == metricdata.CumulativeTemporality {
			a.DataPoints, a.Temporality = deltaSums(name, a.DataPoints, d.flts.sums, flts.sums), metricdata.DeltaTemporality
		}
		return a
	case metricdata.Histogram[int64]:
		if d.histograms && a.Temporality == metricdata.CumulativeTemporality {
			a.DataPoints, a.Temporality = deltaHists(name, a.DataPoints, d.ints.hists, ints.hists), metricdata.DeltaTemporality
		}
		return a
	case metricdata.Histogram[float64]:
		if d.histograms && a.Temporality == metricdata.CumulativeTemporality {
			a.DataPoints, a.Temporality = deltaHists(name, a.DataPoints, d.flts.hists, flts.hists), metricdata.DeltaTemporality
		}
		return a
	}
	return data
}

// deltaSums returns the deltas of ps against prev, recording ps in next.
func deltaSums[N int64 | float64](name string, ps []metricdata.DataPoint[N], prev, next map[deltaKey]metricdata.DataPoint[N]) []metricdata.DataPoint[N] {
	out := make([]metricdata.DataPoint[N], len(ps))
	for i, p := range ps {
		k := deltaKey{name, p.Attributes.Equivalent()}
		next[k] = p
		out[i] = p
		if last, ok := prev[k]; ok && p.Value >= last.Value {
			out[i].Value, out[i].StartTime = p.Value-last.Value, last.Time
		}
	}
	return out
}

// deltaHists returns the deltas of ps against prev, without extrema,
// recording ps in next.
func deltaHists[N int64 | float64](name string, ps []metricdata.HistogramDataPoint[N],
	prev, next map[deltaKey]metricdata.HistogramDataPoint[N]) []metricdata.HistogramDataPoint[N] {
	out := make([]metricdata.HistogramDataPoint[N], len(ps))
	for i, p := range ps {
		k := deltaKey{name, p.Attributes.Equivalent()}
		q := p
		q.BucketCounts = slices.Clone(p.BucketCounts)
		next[k] = q
		q.BucketCounts = slices.Clone(p.BucketCounts)
		q.Min, q.Max = metricdata.Extrema[N]{}, metricdata.Extrema[N]{}
		if last, ok := prev[k]; ok && grew(p, last) {
			q.Count, q.Sum, q.StartTime = p.Count-last.Count, p.Sum-last.Sum, last.Time
			for j := range q.BucketCounts {
				q.BucketCounts[j] -= last.BucketCounts[j]
			}
		}
		out[i] = q
	}
	return out
}

// grew reports whether histogram point p counts at least what last did in
// every bucket: the same series continued, not started again.
func grew[N int64 | float64](p, last metricdata.HistogramDataPoint[N]) bool {
	if p.Count < last.Count || len(p.BucketCounts) != len(last.BucketCounts) {
		return false
	}
	for j, c := range p.BucketCounts {
		if c < last.BucketCounts[j] {
			return false
		}
	}
	return true
}
