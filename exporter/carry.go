package exporter

import (
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// carriable returns the sums and histograms of sms (what a generation
// carries to the next; gauges are observed afresh) with only their
// points whose attributes keep accepts. sms is reused.
func carriable(sms []metricdata.ScopeMetrics, keep func(attribute.Set) bool) []metricdata.Metrics {
	var out []metricdata.Metrics
	for _, sm := range sms {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				d.DataPoints = slices.DeleteFunc(d.DataPoints, func(p metricdata.DataPoint[int64]) bool { return !keep(p.Attributes) })
				m.Data = d
			case metricdata.Sum[float64]:
				d.DataPoints = slices.DeleteFunc(d.DataPoints, func(p metricdata.DataPoint[float64]) bool { return !keep(p.Attributes) })
				m.Data = d
			case metricdata.Histogram[float64]:
				d.DataPoints = slices.DeleteFunc(d.DataPoints, func(p metricdata.HistogramDataPoint[float64]) bool { return !keep(p.Attributes) })
				m.Data = d
			case metricdata.Histogram[int64]:
				d.DataPoints = slices.DeleteFunc(d.DataPoints, func(p metricdata.HistogramDataPoint[int64]) bool { return !keep(p.Attributes) })
				m.Data = d
			default:
				continue
			}
			out = append(out, m)
		}
	}
	return out
}

// addMetrics adds the points of src whose attributes keep accepts (nil:
// all) to the metrics of dst of the same name, and returns dst: a point
// of the same attributes gets their sum (value; count, sum, buckets and
// extremes of a histogram) and the earlier start time, a point dst lacks
// is appended, timed now, and so is a metric dst lacks. dst is modified,
// src is not.
func addMetrics(dst, src []metricdata.Metrics, keep func(attribute.Set) bool) []metricdata.Metrics {
	if keep == nil {
		keep = func(attribute.Set) bool { return true }
	}
	now := time.Now()
	for _, s := range src {
		i := slices.IndexFunc(dst, func(d metricdata.Metrics) bool { return d.Name == s.Name })
		if i < 0 {
			dst = append(dst, metricdata.Metrics{Name: s.Name, Description: s.Description, Unit: s.Unit})
			i = len(dst) - 1
		}
		dst[i].Data = addData(dst[i].Data, s.Data, keep, now)
	}
	return dst
}

// addData adds the points of src to dst, an aggregation of the same type
// or nil; see addMetrics.
func addData(dst, src metricdata.Aggregation, keep func(attribute.Set) bool, now time.Time) metricdata.Aggregation {
	switch s := src.(type) {
	case metricdata.Sum[int64]:
		d, _ := dst.(metricdata.Sum[int64])
		d.Temporality, d.IsMonotonic = s.Temporality, s.IsMonotonic
		d.DataPoints = addSumPoints(d.DataPoints, s.DataPoints, keep, now)
		return d
	case metricdata.Sum[float64]:
		d, _ := dst.(metricdata.Sum[float64])
		d.Temporality, d.IsMonotonic = s.Temporality, s.IsMonotonic
		d.DataPoints = addSumPoints(d.DataPoints, s.DataPoints, keep, now)
		return d
	case metricdata.Histogram[float64]:
		d, _ := dst.(metricdata.Histogram[float64])
		d.Temporality = s.Temporality
		d.DataPoints = addHistPoints(d.DataPoints, s.DataPoints, keep, now)
		return d
	case metricdata.Histogram[int64]:
		d, _ := dst.(metricdata.Histogram[int64])
		d.Temporality = s.Temporality
		d.DataPoints = addHistPoints(d.DataPoints, s.DataPoints, keep, now)
		return d
	}
	return dst
}

// addSumPoints adds src's points to dst's; see addMetrics.
func addSumPoints[N int64 | float64](dst, src []metricdata.DataPoint[N], keep func(attribute.Set) bool,
	now time.Time) []metricdata.DataPoint[N] {
	at := pointIndex(dst, func(p *metricdata.DataPoint[N]) attribute.Set { return p.Attributes })
	for _, s := range src {
		if !keep(s.Attributes) {
			continue
		}
		i, ok := at[s.Attributes.Equivalent()]
		if !ok {
			s.Time, s.Exemplars = now, nil
			dst = append(dst, s)
			continue
		}
		d := &dst[i]
		d.Value += s.Value
		d.StartTime = earlier(d.StartTime, s.StartTime)
	}
	return dst
}

// addHistPoints adds src's points to dst's; see addMetrics. Points with
// other bucket boundaries (which one process never has) are left apart.
func addHistPoints[N int64 | float64](dst, src []metricdata.HistogramDataPoint[N], keep func(attribute.Set) bool,
	now time.Time) []metricdata.HistogramDataPoint[N] {
	at := pointIndex(dst, func(p *metricdata.HistogramDataPoint[N]) attribute.Set { return p.Attributes })
	for _, s := range src {
		if !keep(s.Attributes) {
			continue
		}
		i, ok := at[s.Attributes.Equivalent()]
		if !ok {
			s.Time, s.Exemplars, s.BucketCounts = now, nil, slices.Clone(s.BucketCounts)
			dst = append(dst, s)
			continue
		}
		d := &dst[i]
		if !slices.Equal(d.Bounds, s.Bounds) || len(d.BucketCounts) != len(s.BucketCounts) {
			continue
		}
		d.Count += s.Count
		d.Sum += s.Sum
		for j, c := range s.BucketCounts {
			d.BucketCounts[j] += c
		}
		d.Min, d.Max = extreme(d.Min, s.Min, true), extreme(d.Max, s.Max, false)
		d.StartTime = earlier(d.StartTime, s.StartTime)
	}
	return dst
}

// pointIndex maps the attributes of each point of ps to its index.
func pointIndex[P any](ps []P, attrs func(*P) attribute.Set) map[attribute.Distinct]int {
	out := make(map[attribute.Distinct]int, len(ps))
	for i := range ps {
		set := attrs(&ps[i])
		out[set.Equivalent()] = i
	}
	return out
}

// extreme returns the lesser (least) or the greater of two extrema, either
// of which may be undefined.
func extreme[N int64 | float64](a, b metricdata.Extrema[N], least bool) metricdata.Extrema[N] {
	av, aok := a.Value()
	bv, bok := b.Value()
	switch {
	case !bok:
		return a
	case !aok, least && bv < av, !least && bv > av:
		return b
	}
	return a
}

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
