package exporter

import (
	"strconv"
	"strings"
	"sync"

	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// identity is what identifies a target's series besides its name: label
// (Prometheus name) → the values its series carry.
type identity map[string]map[string]bool

// identity lists the labels of ts's series that a change of its
// description can change: model, API, stream, server, GenAI operation and
// provider, objective sets.
func (ts *targetState) identity() identity {
	t := &ts.target
	id := identity{}
	add := func(label, v string) {
		if id[label] == nil {
			id[label] = map[string]bool{}
		}
		id[label][v] = true
	}
	add(labelModel, t.Model)
	add(labelAPI, t.API)
	add(labelStream, strconv.FormatBool(t.Stream))
	add(labelServerAddress, t.ServerAddress)
	add("gen_ai_request_model", t.Model)
	add("gen_ai_operation_name", operationName(t.API))
	add("gen_ai_provider_name", t.Provider)
	add("server_port", strconv.Itoa(t.ServerPort))
	for _, o := range t.Objectives {
		add(labelObjective, o.Name)
	}
	return id
}

// minus returns the label values of id that other lacks.
func (id identity) minus(other identity) identity {
	out := identity{}
	for label, vs := range id {
		for v := range vs {
			if !other[label][v] {
				if out[label] == nil {
					out[label] = map[string]bool{}
				}
				out[label][v] = true
			}
		}
	}
	return out
}

// retired is what the exposition hides of the series the SDK keeps: every
// series of a removed target, and the series of a replaced target whose
// identifying labels no longer match it. The OpenTelemetry SDK cannot
// forget a counter's or histogram's attribute set; so they are filtered
// out of every Prometheus scrape and OTLP export until a new generation
// of the instruments (see generations) leaves them behind and reset
// empties the filter. It is safe for concurrent use.
type retired struct {
	mu      sync.RWMutex
	targets map[string]bool
	pairs   map[string]identity
}

// newRetired returns a filter hiding nothing.
func newRetired() *retired {
	return &retired{targets: map[string]bool{}, pairs: map[string]identity{}}
}

// retireTarget hides every series of target.
func (r *retired) retireTarget(target string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.targets[target] = true
}

// retire hides the series of target carrying any label value of id.
func (r *retired) retire(target string, id identity) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pairs[target]
	if p == nil {
		p = identity{}
		r.pairs[target] = p
	}
	for label, vs := range id {
		for v := range vs {
			if p[label] == nil {
				p[label] = map[string]bool{}
			}
			p[label][v] = true
		}
	}
}

// restore shows target's series again, those carrying the values of id
// included (a target added back, or changed back).
func (r *retired) restore(target string, id identity) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.targets, target)
	for label, vs := range id {
		for v := range vs {
			delete(r.pairs[target][label], v)
		}
	}
}

// reset hides nothing any more: a new generation has none of the series
// hidden so far.
func (r *retired) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.targets)
	clear(r.pairs)
}

// hidden reports whether the series of target whose labels value returns
// is retired.
func (r *retired) hidden(target string, value func(label string) (string, bool)) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.targets[target] {
		return true
	}
	for label, vs := range r.pairs[target] {
		if v, ok := value(label); ok && vs[v] {
			return true
		}
	}
	return false
}

// empty reports whether nothing is retired, so filtering can be skipped.
func (r *retired) empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.targets) == 0 && len(r.pairs) == 0
}

// prometheus drops the retired series of gathered families, and the
// families left without a series.
func (r *retired) prometheus(mfs []*dto.MetricFamily) []*dto.MetricFamily {
	if r.empty() {
		return mfs
	}
	out := mfs[:0]
	for _, mf := range mfs {
		kept := mf.Metric[:0]
		for _, m := range mf.Metric {
			if !r.hiddenMetric(m) {
				kept = append(kept, m)
			}
		}
		if mf.Metric = kept; len(kept) > 0 {
			out = append(out, mf)
		}
	}
	return out
}

// hiddenMetric reports whether a gathered series is retired.
func (r *retired) hiddenMetric(m *dto.Metric) bool {
	value := func(label string) (string, bool) {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				return l.GetValue(), true
			}
		}
		return "", false
	}
	target, ok := value(labelTarget)
	return ok && r.hidden(target, value)
}

// hiddenSet reports whether an OpenTelemetry attribute set is retired;
// attribute keys are compared by their Prometheus names.
func (r *retired) hiddenSet(set attribute.Set) bool {
	t, ok := set.Value(labelTarget)
	if !ok {
		return false
	}
	return r.hidden(t.String(), func(label string) (string, bool) {
		for _, kv := range set.ToSlice() {
			if strings.ReplaceAll(string(kv.Key), ".", "_") == label {
				return kv.Value.String(), true
			}
		}
		return "", false
	})
}

// otlp drops the retired data points of an export, in place.
func (r *retired) otlp(rm *metricdata.ResourceMetrics) {
	if r.empty() {
		return
	}
	for i := range rm.ScopeMetrics {
		ms := rm.ScopeMetrics[i].Metrics
		for j := range ms {
			ms[j].Data = r.filterData(ms[j].Data)
		}
	}
}

// filterData drops the retired points of one instrument's data.
func (r *retired) filterData(data metricdata.Aggregation) metricdata.Aggregation {
	switch d := data.(type) {
	case metricdata.Sum[int64]:
		d.DataPoints = keepPoints(r, d.DataPoints, func(p metricdata.DataPoint[int64]) attribute.Set { return p.Attributes })
		return d
	case metricdata.Sum[float64]:
		d.DataPoints = keepPoints(r, d.DataPoints, func(p metricdata.DataPoint[float64]) attribute.Set { return p.Attributes })
		return d
	case metricdata.Gauge[int64]:
		d.DataPoints = keepPoints(r, d.DataPoints, func(p metricdata.DataPoint[int64]) attribute.Set { return p.Attributes })
		return d
	case metricdata.Gauge[float64]:
		d.DataPoints = keepPoints(r, d.DataPoints, func(p metricdata.DataPoint[float64]) attribute.Set { return p.Attributes })
		return d
	case metricdata.Histogram[float64]:
		d.DataPoints = keepPoints(r, d.DataPoints, func(p metricdata.HistogramDataPoint[float64]) attribute.Set { return p.Attributes })
		return d
	case metricdata.Histogram[int64]:
		d.DataPoints = keepPoints(r, d.DataPoints, func(p metricdata.HistogramDataPoint[int64]) attribute.Set { return p.Attributes })
		return d
	}
	return data
}

// keepPoints returns the points of ps whose attributes are not retired.
func keepPoints[P any](r *retired, ps []P, attrs func(P) attribute.Set) []P {
	out := make([]P, 0, len(ps))
	for _, p := range ps {
		if !r.hiddenSet(attrs(p)) {
			out = append(out, p)
		}
	}
	return out
}
