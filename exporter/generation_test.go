package exporter

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
)

// renamedTargets is the number of targets renamed at each reload, and
// renameRounds the number of configurations they go through.
const (
	renamedTargets = 50
	renameRounds   = 100
)

// keptName is the target kept through every reload.
const keptName = "kept"

// fleetTarget is a streamed chat target with alpha's objective set (no
// conversations) called name.
func fleetTarget(name string) Target {
	t := alpha
	t.Name, t.Conversations = name, false
	return t
}

// roundName is the name of renamed target i in configuration r.
func roundName(r, i int) string { return fmt.Sprintf("t%d-%d", r, i) }

// roundRequests is the number of successful requests renamed target i
// finishes in configuration r: 1 to 3.
func roundRequests(r, i int) int { return 1 + (r+i)%3 }

// finishOK has target finish n successful requests (alphaOK's timings).
func finishOK(o *Observer, target string, n int) {
	for range n {
		rec := alphaOK()
		rec.Target = target
		o.Started(target)
		o.Finished(rec)
	}
}

// newLimitedMetrics returns Metrics whose cardinality limit SeriesBudget
// sets for targets, as run does, with an Observer of targets.
func newLimitedMetrics(t *testing.T, targets []Target, getenv func(string) string) (*Metrics, *Observer) {
	t.Helper()
	b, err := SeriesBudget(targets, 0, Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Revision: "abc123", Getenv: getenv,
		Now: func() time.Time { return t0 }, CardinalityLimit: b.CardinalityLimit()})
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	o, err := NewObserver(m, targets)
	if err != nil {
		t.Fatalf("NewObserver: %v", err)
	}
	return m, o
}

// finalTargets is the last configuration of the rename: kept and the
// renamed targets of round renameRounds−1.
func finalTargets() []Target {
	out := []Target{fleetTarget(keptName)}
	for i := range renamedTargets {
		out = append(out, fleetTarget(roundName(renameRounds-1, i)))
	}
	return out
}

// reload replaces the renamed targets of round r−1 by those of round r, as
// the daemon applies a reload (removals first), and has every target of
// round r finish its requests and kept finish 2.
func reload(t *testing.T, o *Observer, r int) {
	t.Helper()
	for i := range renamedTargets {
		if r > 0 {
			o.Remove(roundName(r-1, i))
		}
	}
	for i := range renamedTargets {
		if err := o.Add(fleetTarget(roundName(r, i))); err != nil {
			t.Fatal(err)
		}
		finishOK(o, roundName(r, i), roundRequests(r, i))
	}
	finishOK(o, keptName, 2)
}

// seriesValue returns the value of the counter, or the count of the
// histogram, of family name with labels want; ok false without one.
func seriesValue(mfs []*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	m := findMetric(mfs, name, want)
	switch {
	case m == nil:
		return 0, false
	case m.GetHistogram() != nil:
		return float64(m.GetHistogram().GetSampleCount()), true
	}
	return m.GetCounter().GetValue(), true
}

// overflowSeries returns the families that have an overflow series.
func overflowSeries(mfs []*dto.MetricFamily) []string {
	var out []string
	for _, mf := range mfs {
		if familyOverflowed(mf) {
			out = append(out, mf.GetName())
		}
	}
	return out
}

// targetsIn returns the values of the target label in mfs.
func targetsIn(mfs []*dto.MetricFamily) map[string]bool {
	out := map[string]bool{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == labelTarget {
					out[l.GetValue()] = true
				}
			}
		}
	}
	return out
}

// TestRenamedTargetsKeepExactSeries: 50 targets renamed 100 times over
// reloads (5000 names, 2.5 times what the cardinality limit of 2000 would
// hold of llmprober_requests_total without new generations) leave every
// current target with its exact series and no overflow series, and the
// target kept through every reload counts on without a reset: its
// llmprober_requests_total and TTFT histogram count are 2 per reload
// after every reload (read as both export paths read them, and every 10
// reloads on /metrics). The process then retains at most 1.5 times the
// heap of a fresh process with only the final configuration, plus 1 MiB.
func TestRenamedTargetsKeepExactSeries(t *testing.T) {
	fresh, keptFresh := retainedHeap(func() any {
		m, o := newLimitedMetrics(t, finalTargets(), noEnv)
		finishOK(o, keptName, 2*renameRounds)
		for i := range renamedTargets {
			finishOK(o, roundName(renameRounds-1, i), roundRequests(renameRounds-1, i))
		}
		gather(t, m)
		return []any{m, o}
	})
	renamed, kept := retainedHeap(func() any {
		m, o := newLimitedMetrics(t, []Target{fleetTarget(keptName)}, noEnv)
		renameChecked(t, m, o)
		return m
	})
	runtime.KeepAlive(keptFresh)
	t.Logf("retained heap: fresh %d B, renamed %d B (%.2f×)", fresh, renamed, float64(renamed)/float64(fresh))
	if most := fresh*3/2 + heapSlack; renamed > most {
		t.Errorf("renamed fleet retains %d B, want at most 1.5 × %d + %d = %d", renamed, fresh, heapSlack, most)
	}
	checkFinalSeries(t, kept.(*Metrics))
}

// renameChecked runs the reloads of TestRenamedTargetsKeepExactSeries
// through m and o, checking the kept target and overflow after each.
func renameChecked(t *testing.T, m *Metrics, o *Observer) {
	t.Helper()
	for r := range renameRounds {
		reload(t, o, r)
		want := 2 * (r + 1)
		requests, ttft, over := keptProduced(t, m)
		if requests != int64(want) || ttft != uint64(want) || len(over) > 0 {
			t.Fatalf("reload %d: kept target's requests %d, TTFT count %d, overflow in %v; want %d, %d, none",
				r, requests, ttft, over, want, want)
		}
		if r%10 != 9 {
			continue
		}
		mfs := gather(t, m)
		for _, name := range []string{"llmprober_requests_total", "llmprober_time_to_first_token_seconds"} {
			labels := map[string]string{labelTarget: keptName}
			if name == "llmprober_requests_total" {
				labels["outcome"] = "successful"
			}
			if got, ok := seriesValue(mfs, name, labels); !ok || got != float64(want) {
				t.Fatalf("reload %d: %s of %s = %v (found %v), want %d", r, name, keptName, got, ok, want)
			}
		}
		if over := overflowSeries(mfs); len(over) > 0 {
			t.Fatalf("reload %d: overflow series in %v", r, over)
		}
	}
}

// checkFinalSeries checks the series of the final configuration in m.
func checkFinalSeries(t *testing.T, m *Metrics) {
	t.Helper()
	mfs := gather(t, m)
	for i := range renamedTargets {
		name := roundName(renameRounds-1, i)
		for _, c := range []struct {
			family string
			labels map[string]string
			want   float64
		}{
			{"llmprober_requests_total", map[string]string{"outcome": "successful"}, float64(roundRequests(renameRounds-1, i))},
			{"llmprober_requests_total", map[string]string{"outcome": "errored", "error_type": "timeout"}, 0},
			{"llmprober_time_to_first_token_seconds", nil, float64(roundRequests(renameRounds-1, i))},
			{"llmprober_slo_requests_evaluated_total", map[string]string{labelObjective: "default"}, float64(roundRequests(renameRounds-1, i))},
		} {
			c.labels = mergeLabels(c.labels, labelTarget, name)
			if got, ok := seriesValue(mfs, c.family, c.labels); !ok || got != c.want {
				t.Errorf("%s%v = %v (found %v), want %v", c.family, c.labels, got, ok, c.want)
			}
		}
	}
	// Exposed: exactly the current targets.
	if got := targetsIn(filteredGather(t, m)); len(got) != renamedTargets+1 {
		t.Errorf("/metrics shows %d targets, want %d", len(got), renamedTargets+1)
	}
	// Kept by the SDK: at most the current targets and the retired ones
	// a generation may hold (half the current ones plus the slack).
	if got, most := len(targetsIn(mfs)), renamedTargets+1+(renamedTargets+1)/2+retiredSlack; got > most {
		t.Errorf("the SDK holds series of %d targets, want at most %d", got, most)
	}
	if m.gens.renewals == 0 {
		t.Error("no new generation started")
	}
	t.Logf("%d generations for %d names", m.gens.renewals+1, renameRounds*renamedTargets+1)
}

// keptProduced returns what both export paths read of the kept target:
// its successful requests and its TTFT count; and the instruments that
// have an overflow point.
func keptProduced(t *testing.T, m *Metrics) (requests int64, ttft uint64, overflowed []string) {
	t.Helper()
	sms, err := m.gens.Produce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kept := func(set attribute.Set) bool { v, _ := set.Value(labelTarget); return v.AsString() == keptName }
	for _, sm := range sms {
		for _, mt := range sm.Metrics {
			if _, over := dataOverflowed(mt.Data); over {
				overflowed = append(overflowed, mt.Name)
			}
			switch d := mt.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					v, _ := p.Attributes.Value("outcome")
					if mt.Name == InstrumentRequests && kept(p.Attributes) && v.AsString() == "successful" {
						requests += p.Value
					}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					if mt.Name == InstrumentTTFT && kept(p.Attributes) {
						ttft += p.Count
					}
				}
			}
		}
	}
	return requests, ttft, overflowed
}

// mergeLabels returns labels with key set to value.
func mergeLabels(labels map[string]string, key, value string) map[string]string {
	out := map[string]string{key: value}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// filteredGather returns what /metrics serves: the gathered families
// without the retired series.
func filteredGather(t *testing.T, m *Metrics) []*dto.MetricFamily {
	t.Helper()
	return m.retired.prometheus(gather(t, m))
}

// retainedHeap returns the heap that build's result keeps after garbage
// collection, in bytes.
func retainedHeap(build func() any) (uint64, any) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := build()
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return 0, kept
	}
	return after.HeapAlloc - before.HeapAlloc, kept
}

// heapSlack is the constant of the heap bound of a renamed fleet.
const heapSlack = 1 << 20

// TestRenamedTargetsOTLP: over OTLP too, the kept target's
// llmprober.requests and TTFT histogram continue across generations, and
// no point names a removed target. Cumulative (the default), their start
// times stay the first export's (a receiver sees no reset) and they count
// 2 per reload from the start; with the delta temporality preference,
// each export carries the 2 requests of its reload, starting where the
// previous one ended.
func TestRenamedTargetsOTLP(t *testing.T) {
	for _, c := range []struct {
		preference string
		delta      bool
	}{{"", false}, {"cumulative", false}, {"delta", true}, {"lowmemory", true}} {
		t.Run(cmp.Or(c.preference, "default"), func(t *testing.T) {
			rcv := startHTTPReceiver(t)
			getenv := setenv(t, map[string]string{
				"OTEL_METRICS_EXPORTER":                             "otlp",
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT":               rcv.endpoint,
				"OTEL_METRIC_EXPORT_INTERVAL":                       "3600000", // only the forced exports
				"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE": c.preference,
			})
			m, o := newLimitedMetrics(t, []Target{fleetTarget(keptName)}, getenv)
			checkRenamedOTLP(t, m, o, rcv, c.delta)
		})
	}
}

// checkRenamedOTLP runs 8 reloads through m and o, exporting after each
// to rcv, and checks the kept target's points (see TestRenamedTargetsOTLP).
func checkRenamedOTLP(t *testing.T, m *Metrics, o *Observer, rcv *receiver, delta bool) {
	t.Helper()
	const rounds = 8
	var start, histStart uint64
	for r := range rounds {
		reload(t, o, r)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m.ExportStart(ctx)
		m.exports.waitStart(ctx) // the start export runs in the background
		cancel()
		byName, _ := otlpMetrics(receive(t, rcv))
		sum, hist := byName[InstrumentRequests].GetSum(), byName[InstrumentTTFT].GetHistogram()
		p := otlpPoint(sum.GetDataPoints(), map[string]string{labelTarget: keptName, "outcome": "successful"})
		h := otlpHistPoint(hist.GetDataPoints(), keptName)
		if p == nil || h == nil {
			t.Fatalf("export %d lacks the kept target's points", r)
		}
		want, temporality := 2*(r+1), metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
		if delta {
			want, temporality = 2, metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
		}
		if r == 0 || delta {
			start, histStart = p.GetStartTimeUnixNano(), h.GetStartTimeUnixNano()
		}
		if p.GetAsInt() != int64(want) || h.GetCount() != uint64(want) ||
			sum.GetAggregationTemporality() != temporality || hist.GetAggregationTemporality() != temporality {
			t.Errorf("export %d: requests %d, TTFT count %d, temporalities %v, %v; want %d, %v", r, p.GetAsInt(), h.GetCount(),
				sum.GetAggregationTemporality(), hist.GetAggregationTemporality(), want, temporality)
		}
		if p.GetStartTimeUnixNano() != start || h.GetStartTimeUnixNano() != histStart {
			t.Errorf("export %d: start times %d, %d; want %d, %d", r, p.GetStartTimeUnixNano(), h.GetStartTimeUnixNano(), start, histStart)
		}
		if delta {
			start, histStart = p.GetTimeUnixNano(), h.GetTimeUnixNano()
		}
		if n := otlpTargets(sum.GetDataPoints()); n != renamedTargets+1 {
			t.Errorf("export %d: requests of %d targets, want %d", r, n, renamedTargets+1)
		}
	}
	if m.gens.renewals == 0 {
		t.Error("no new generation started")
	}
}

// otlpPoint returns the point of ps whose attributes include want.
func otlpPoint(ps []*metricspb.NumberDataPoint, want map[string]string) *metricspb.NumberDataPoint {
	for _, p := range ps {
		if attrsMatch(p.GetAttributes(), want) {
			return p
		}
	}
	return nil
}

// otlpHistPoint returns the point of ps of target.
func otlpHistPoint(ps []*metricspb.HistogramDataPoint, target string) *metricspb.HistogramDataPoint {
	for _, p := range ps {
		if attrsMatch(p.GetAttributes(), map[string]string{labelTarget: target}) {
			return p
		}
	}
	return nil
}

// otlpTargets counts the targets of ps.
func otlpTargets(ps []*metricspb.NumberDataPoint) int {
	seen := map[string]bool{}
	for _, p := range ps {
		for _, kv := range p.GetAttributes() {
			if kv.GetKey() == labelTarget {
				seen[kv.GetValue().GetStringValue()] = true
			}
		}
	}
	return len(seen)
}

// TestRenewalLosesNoMeasurement: requests the kept target finishes while
// reloads start new generations, and scrapes meanwhile, are all counted.
func TestRenewalLosesNoMeasurement(t *testing.T) {
	m, o := newLimitedMetrics(t, []Target{fleetTarget(keptName)}, noEnv)
	const rounds, concurrent = 6, 300
	done := make(chan struct{})
	go func() {
		defer close(done)
		finishOK(o, keptName, concurrent)
	}()
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		for range rounds {
			m.retired.prometheus(gather(t, m))
		}
	}()
	for r := range rounds {
		reload(t, o, r)
	}
	<-done
	<-scraped
	want := float64(concurrent + 2*rounds)
	got, _ := seriesValue(gather(t, m), "llmprober_requests_total", map[string]string{labelTarget: keptName, "outcome": "successful"})
	if got != want || m.gens.renewals == 0 {
		t.Errorf("kept target counted %v requests over %d generations, want %v over more than 1", got, m.gens.renewals+1, want)
	}
}

// TestReplacedTargetRenews: a target whose model changes at each of 300
// reloads starts new generations too; its llmprober_requests_total (no
// model label) counts on, its operation duration starts afresh under
// each model, no overflow series appears, and the SDK holds the series of
// at most 10 models (all 300 without new generations).
func TestReplacedTargetRenews(t *testing.T) {
	const rounds = 300
	m, o := newLimitedMetrics(t, []Target{fleetTarget(keptName), fleetTarget("other")}, noEnv)
	for r := range rounds {
		changed := fleetTarget(keptName)
		changed.Model = fmt.Sprintf("model-%d", r)
		if _, err := o.Replace(changed); err != nil {
			t.Fatal(err)
		}
		finishOK(o, keptName, 1)
	}
	mfs := gather(t, m)
	requests, _ := seriesValue(mfs, "llmprober_requests_total", map[string]string{labelTarget: keptName, "outcome": "successful"})
	duration, _ := seriesValue(mfs, "gen_ai_client_operation_duration_seconds",
		map[string]string{labelTarget: keptName, "gen_ai_request_model": fmt.Sprintf("model-%d", rounds-1)})
	if requests != rounds || duration != 1 || len(overflowSeries(mfs)) > 0 || m.gens.renewals == 0 {
		t.Errorf("requests %v, last model's duration count %v, overflow in %v, %d generations; want %d, 1, none, more than 1",
			requests, duration, overflowSeries(mfs), m.gens.renewals+1, rounds)
	}
	// The SDK holds the series of a few models, not of every model seen.
	models := map[string]bool{}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "gen_ai_request_model" {
					models[l.GetValue()] = true
				}
			}
		}
	}
	if len(models) > 10 {
		t.Errorf("the SDK holds series of %d models, want at most 10", len(models))
	}
}

// TestAddedBackAfterRenewal: a name added back after its series were
// forgotten by a new generation counts from 0; added back before, it
// continues (TestObserverRemoveHidesSeries).
func TestAddedBackAfterRenewal(t *testing.T) {
	targets := []Target{fleetTarget(keptName)}
	for i := range 10 {
		targets = append(targets, fleetTarget(roundName(0, i)))
	}
	m, o := newLimitedMetrics(t, targets, noEnv)
	back := roundName(0, 0)
	finishOK(o, back, 3)
	for i := range 10 {
		o.Remove(roundName(0, i))
	}
	if m.gens.renewals == 0 {
		t.Fatal("removing 10 of 11 targets started no generation")
	}
	if err := o.Add(fleetTarget(back)); err != nil {
		t.Fatal(err)
	}
	got, ok := seriesValue(gather(t, m), "llmprober_requests_total", map[string]string{labelTarget: back, "outcome": "successful"})
	if !ok || got != 0 {
		t.Errorf("added back: %v (found %v), want 0", got, ok)
	}
}

// TestCloseKeepsNewerObserversGauges: closing an Observer that another
// replaced leaves the newer one's gauges reported; closing the newer one
// stops them.
func TestCloseKeepsNewerObserversGauges(t *testing.T) {
	m, first := newTestMetrics(t, alpha)
	second, err := NewObserver(m, []Target{beta})
	if err != nil {
		t.Fatal(err)
	}
	info := func() bool {
		return findMetric(gather(t, m), "llmprober_target_info", map[string]string{labelTarget: "beta"}) != nil
	}
	for _, c := range []struct {
		close *Observer
		want  bool
	}{{first, true}, {second, false}} {
		if err := c.close.Close(); err != nil {
			t.Fatal(err)
		}
		if got := info(); got != c.want {
			t.Errorf("after closing the %v observer: beta's target info reported %v, want %v", c.close == first, got, c.want)
		}
	}
}
