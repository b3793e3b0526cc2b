package exporter

import (
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestAddMetrics: carried points add to the points of the same attributes
// (counts, sums, buckets; the lesser minimum, the greater maximum, the
// earlier start), are appended where the new generation has none, and
// are left out where keep refuses them; the carried data is not changed.
func TestAddMetrics(t *testing.T) {
	a, b, gone := attribute.NewSet(attribute.String(labelTarget, "a")), attribute.NewSet(attribute.String(labelTarget, "b")),
		attribute.NewSet(attribute.String(labelTarget, "gone"))
	early, late := t0, t0.Add(time.Hour)
	bounds := []float64{1, 2}
	hist := func(set attribute.Set, start time.Time, counts []uint64, sum, lo, hi float64) metricdata.HistogramDataPoint[float64] {
		var n uint64
		for _, c := range counts {
			n += c
		}
		return metricdata.HistogramDataPoint[float64]{Attributes: set, StartTime: start, Count: n, Sum: sum, Bounds: bounds,
			BucketCounts: counts, Min: metricdata.NewExtrema(lo), Max: metricdata.NewExtrema(hi)}
	}
	sum := func(pts ...metricdata.DataPoint[int64]) metricdata.Sum[int64] {
		return metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: pts}
	}
	carried := []metricdata.Metrics{
		{Name: "h", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{
			hist(a, early, []uint64{1, 2, 0}, 4, 0.5, 1.5), hist(b, early, []uint64{0, 0, 3}, 9, 3, 3), hist(gone, early, []uint64{1, 0, 0}, 1, 1, 1)}}},
		{Name: "c", Data: sum(metricdata.DataPoint[int64]{Attributes: a, StartTime: early, Value: 5})},
		{Name: "only-carried", Data: sum(metricdata.DataPoint[int64]{Attributes: b, StartTime: early, Value: 7})},
	}
	before := slices.Clone(carried[0].Data.(metricdata.Histogram[float64]).DataPoints[0].BucketCounts)
	current := []metricdata.Metrics{
		{Name: "h", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{
			hist(a, late, []uint64{0, 1, 1}, 5.5, 1.5, 4)}}},
		{Name: "c", Data: sum(metricdata.DataPoint[int64]{Attributes: a, StartTime: late, Value: 2})},
	}
	got := addMetrics(current, carried, func(s attribute.Set) bool { return !s.Equals(&gone) })

	h := got[0].Data.(metricdata.Histogram[float64]).DataPoints
	if len(h) != 2 {
		t.Fatalf("histogram has %d points, want 2 (a merged, b carried, gone left out)", len(h))
	}
	lo, _ := h[0].Min.Value()
	hi, _ := h[0].Max.Value()
	if !slices.Equal(h[0].BucketCounts, []uint64{1, 3, 1}) || h[0].Count != 5 || h[0].Sum != 9.5 || lo != 0.5 || hi != 4 || !h[0].StartTime.Equal(early) {
		t.Errorf("a merged = %v count %d sum %v min %v max %v start %v; want [1 3 1] 5 9.5 0.5 4 %v",
			h[0].BucketCounts, h[0].Count, h[0].Sum, lo, hi, h[0].StartTime, early)
	}
	if !h[1].Attributes.Equals(&b) || !slices.Equal(h[1].BucketCounts, []uint64{0, 0, 3}) || h[1].Count != 3 {
		t.Errorf("b carried = %v %v count %d; want b [0 0 3] 3", h[1].Attributes, h[1].BucketCounts, h[1].Count)
	}
	h[1].BucketCounts[2] = 99 // the appended point owns its buckets
	if c := got[1].Data.(metricdata.Sum[int64]).DataPoints[0]; c.Value != 7 || !c.StartTime.Equal(early) {
		t.Errorf("c = %d from %v, want 7 from %v", c.Value, c.StartTime, early)
	}
	if len(got) != 3 || got[2].Name != "only-carried" || got[2].Data.(metricdata.Sum[int64]).DataPoints[0].Value != 7 {
		t.Errorf("metrics %v, want only-carried appended with 7", got)
	}
	after := carried[0].Data.(metricdata.Histogram[float64]).DataPoints
	if !slices.Equal(after[0].BucketCounts, before) || after[1].BucketCounts[2] != 3 {
		t.Errorf("carried data changed: %v, %v", after[0].BucketCounts, after[1].BucketCounts)
	}
}
