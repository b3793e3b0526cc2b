package exporter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/llmprober/llmprober/probe"
)

// scrapeText serves m's /metrics handler once and returns the exposition.
func scrapeText(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return string(b)
}

// line returns the exposition line that starts with prefix, "" without one.
func line(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// A removed target's series leave the exposition, the other's stay; added
// back, its series return with their values (the SDK kept them).
func TestObserverRemoveHidesSeries(t *testing.T) {
	beta := alpha
	beta.Name = "beta"
	m, o := newTestMetrics(t, alpha, beta)
	recordEverything(o, "alpha")
	recordEverything(o, "beta")
	o.Remove("beta")
	text := scrapeText(t, m)
	if strings.Contains(text, `target="beta"`) {
		t.Errorf("series of the removed target remain:\n%s", line(text, "llmprober_requests_total{"))
	}
	if got := line(text, `llmprober_requests_total{error_type="timeout",outcome="errored",target="alpha"}`); !strings.HasSuffix(got, " 1") {
		t.Errorf("alpha's timeouts = %q, want 1", got)
	}
	o.Started("beta") // ignored: beta is gone
	if err := o.Add(beta); err != nil {
		t.Fatal(err)
	}
	text = scrapeText(t, m)
	if got := line(text, `llmprober_requests_total{error_type="timeout",outcome="errored",target="beta"}`); !strings.HasSuffix(got, " 1") {
		t.Errorf("beta added back: timeouts = %q, want its earlier 1", got)
	}
	if got := line(text, `llmprober_requests_in_flight{target="beta"}`); !strings.HasSuffix(got, " 0") {
		t.Errorf("beta's in flight = %q, want 0 (the Started while removed was ignored)", got)
	}
	if err := o.Add(beta); err == nil {
		t.Error("adding a target twice succeeded")
	}
}

// A replaced target keeps its status and counters; the series of its old
// model leave the exposition, those of the new one appear.
func TestObserverReplaceKeepsCounters(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	recordEverything(o, "alpha")
	changed := alpha
	changed.Model = "llama-3-70b"
	if _, err := o.Replace(changed); err != nil {
		t.Fatal(err)
	}
	o.Started("alpha")
	o.Finished(alphaOK())
	text := scrapeText(t, m)
	if got := line(text, `llmprober_requests_total{outcome="successful",target="alpha"}`); !strings.HasSuffix(got, " 2") {
		t.Errorf("successful after the replacement = %q, want 2 (1 before, 1 after)", got)
	}
	if strings.Contains(text, `model="llama-3-8b"`) || strings.Contains(text, `gen_ai_request_model="llama-3-8b"`) {
		t.Errorf("series of the old model remain:\n%s", line(text, "llmprober_target_info{"))
	}
	if !strings.Contains(text, `llmprober_target_info{api="chat",model="llama-3-70b"`) ||
		!strings.Contains(text, `gen_ai_request_model="llama-3-70b"`) {
		t.Errorf("series of the new model missing:\n%s", line(text, "llmprober_target_info{"))
	}
	st := o.Status()
	if len(st) != 1 || st[0].Counts[probe.Successful] != 2 || st[0].Target.Model != "llama-3-70b" {
		t.Errorf("status = %+v, want 2 successful under the new model", st)
	}
	if _, err := o.Replace(Target{Name: "nobody", API: "chat"}); err == nil {
		t.Error("replacing an unknown target succeeded")
	}
}

// OTLP exports leave out the retired points too.
func TestRetiredOTLP(t *testing.T) {
	r := newRetired()
	r.retireTarget("gone")
	r.retire("kept", identity{"gen_ai_request_model": {"old": true}})
	set := func(kv ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kv...) }
	rm := &metricdata.ResourceMetrics{ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{
		{Name: "a", Data: metricdata.Sum[int64]{DataPoints: []metricdata.DataPoint[int64]{
			{Attributes: set(attribute.String("target", "gone")), Value: 1},
			{Attributes: set(attribute.String("target", "kept"), attribute.String("gen_ai.request.model", "old")), Value: 2},
			{Attributes: set(attribute.String("target", "kept"), attribute.String("gen_ai.request.model", "new")), Value: 3},
			{Attributes: set(attribute.String("outcome", "success")), Value: 4},
		}}},
		{Name: "h", Data: metricdata.Histogram[float64]{DataPoints: []metricdata.HistogramDataPoint[float64]{
			{Attributes: set(attribute.String("target", "gone")), Count: 1},
		}}},
	}}}}
	r.otlp(rm)
	var got []int64
	for _, p := range rm.ScopeMetrics[0].Metrics[0].Data.(metricdata.Sum[int64]).DataPoints {
		got = append(got, p.Value)
	}
	if len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Errorf("sum points kept = %v, want [3 4]", got)
	}
	if n := len(rm.ScopeMetrics[0].Metrics[1].Data.(metricdata.Histogram[float64]).DataPoints); n != 0 {
		t.Errorf("histogram points of the removed target kept: %d", n)
	}
	r.restore("gone", identity{})
	if r.hiddenSet(set(attribute.String("target", "gone"))) {
		t.Error("a restored target is still hidden")
	}
}

// Thresholds of a new configuration that are not boundaries of the
// running histograms are reported, per histogram.
func TestNewBoundaries(t *testing.T) {
	running := map[string][]float64{InstrumentTTFT: {0.123}}
	next := map[string][]float64{InstrumentTTFT: {0.123, 0.5, 0.777}, InstrumentOperationDuration: {0.333}}
	got := NewBoundaries(running, next)
	if len(got) != 2 || len(got[InstrumentTTFT]) != 1 || got[InstrumentTTFT][0] != 0.777 || got[InstrumentOperationDuration][0] != 0.333 {
		t.Errorf("NewBoundaries = %v, want ttft [0.777] (0.5 is a default boundary) and operation duration [0.333]", got)
	}
}
