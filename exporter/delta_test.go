package exporter

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestDeltaConverter: successive cumulative exports of a per-target
// counter become their differences, each starting at the previous
// export's time; a value that fell (a series started again) and a series
// absent from the previous export pass whole; other instruments stay
// cumulative.
func TestDeltaConverter(t *testing.T) {
	d := &deltaConverter{counters: true, histograms: true}
	set := attribute.NewSet(attribute.String(labelTarget, "a"))
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for i, c := range []struct {
		value, want int64 // cumulative exported, delta expected; -1: absent
		wantStart   time.Time
	}{
		{5, 5, at(0)},
		{8, 3, at(1)},
		{8, 0, at(2)},
		{2, 2, at(0)}, // fell: started again
		{-1, -1, time.Time{}},
		{4, 4, at(0)}, // absent before: whole
	} {
		var pts []metricdata.DataPoint[int64]
		if c.value >= 0 {
			pts = []metricdata.DataPoint[int64]{{Attributes: set, StartTime: at(0), Time: at(i + 1), Value: c.value}}
		}
		cum := func(pts []metricdata.DataPoint[int64]) metricdata.Sum[int64] {
			return metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: pts}
		}
		rm := &metricdata.ResourceMetrics{ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{
			{Name: InstrumentRequests, Data: cum(pts)}, {Name: "go_other", Data: cum(pts)}}}}}
		d.convert(rm)
		got := rm.ScopeMetrics[0].Metrics[0].Data.(metricdata.Sum[int64])
		other := rm.ScopeMetrics[0].Metrics[1].Data.(metricdata.Sum[int64])
		if got.Temporality != metricdata.DeltaTemporality || other.Temporality != metricdata.CumulativeTemporality {
			t.Errorf("export %d: temporalities %v, %v; want delta, cumulative", i, got.Temporality, other.Temporality)
		}
		if c.want < 0 {
			continue
		}
		if p := got.DataPoints[0]; p.Value != c.want || !p.StartTime.Equal(c.wantStart) {
			t.Errorf("export %d: delta %d from %v, want %d from %v", i, p.Value, p.StartTime, c.want, c.wantStart)
		}
	}
}
