package exporter

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe"
)

// feedTurnFixtures adds the scheduler's measurements of alpha: two
// conversations generated in 40 µs and 3 ms, one later turn with 2 s of think
// time. Beta has none, so its series are absent.
func feedTurnFixtures(o *Observer) {
	o.GenerationDelay("alpha", 40*time.Microsecond)
	o.GenerationDelay("alpha", 3*time.Millisecond)
	o.ThinkTime("alpha", 2*time.Second)
}

func TestTurnMetrics(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	// A later turn targeted at 0 whose predecessor ended at 300 ms, sent at
	// 500 ms: dispatch delay 0.5 = predecessor 0.3 + scheduling 0.2.
	turn := &probe.Record{Target: "alpha", API: "chat", Stream: true, ConversationID: "c0", Turn: 2,
		TargetedStart: at(0), PredecessorDone: at(300), RequestStart: at(500), End: at(900), Outcome: probe.Successful}
	// A closed-loop request has no targeted start: nothing is recorded.
	closed := &probe.Record{Target: "beta", API: "completions", RequestStart: at(0), End: at(100), Outcome: probe.Successful}
	o.Started("alpha")
	o.Finished(turn)
	o.Started("beta")
	o.Finished(closed)
	feedTurnFixtures(o)
	o.ThinkTime("ghost", time.Second) // unknown targets are ignored
	mfs := gather(t, m)
	a, b := map[string]string{"target": "alpha"}, map[string]string{"target": "beta"}
	for _, c := range []histCase{
		{name: "predecessor", family: "llmprober_turn_predecessor_delay_seconds", labels: a, count: 1, sum: 0.3,
			buckets: map[float64]int64{0.25: 0, 0.5: 1}},
		{name: "scheduling", family: "llmprober_turn_scheduling_delay_seconds", labels: a, count: 1, sum: 0.2,
			buckets: map[float64]int64{0.1: 0, 0.25: 1}},
		// 2 s lands in (1, 2].
		{name: "think", family: "llmprober_think_time_seconds", labels: a, count: 1, sum: 2,
			buckets: map[float64]int64{1: 0, 2: 1}},
		// 40 µs in (25 µs, 50 µs]; 3 ms in (2.5 ms, 5 ms]; sum 0.00304.
		{name: "generation", family: "llmprober_generation_delay_seconds", labels: a, count: 2, sum: fsum(0.00004, 0.003),
			buckets: map[float64]int64{0.000025: 0, 0.00005: 1, 0.0025: 1, 0.005: 2}},
	} {
		t.Run(c.name, func(t *testing.T) { checkHistogram(t, mfs, c) })
	}
	for _, family := range []string{"llmprober_turn_predecessor_delay_seconds", "llmprober_turn_scheduling_delay_seconds",
		"llmprober_think_time_seconds", "llmprober_generation_delay_seconds", "llmprober_dispatch_delay_seconds"} {
		if mt := findMetric(mfs, family, b); mt != nil {
			t.Errorf("%s has a series for beta, which has no schedule and no conversations", family)
		}
	}
	if mt := findMetric(mfs, "llmprober_think_time_seconds", map[string]string{"target": "ghost"}); mt != nil {
		t.Error("think time recorded for an unknown target")
	}
}

// checkHistogram compares one histogram series with c.
func checkHistogram(t *testing.T, mfs []*dto.MetricFamily, c histCase) {
	t.Helper()
	mt := findMetric(mfs, c.family, c.labels)
	if mt == nil {
		t.Fatalf("no %s series with %v", c.family, c.labels)
	}
	h := mt.GetHistogram()
	if h.GetSampleCount() != c.count || h.GetSampleSum() != c.sum {
		t.Errorf("count, sum = %d, %v; want %d, %v", h.GetSampleCount(), h.GetSampleSum(), c.count, c.sum)
	}
	for le, want := range c.buckets {
		if got := bucketCount(h, le); got != want {
			t.Errorf("bucket le=%v = %d; want %d", le, got, want)
		}
	}
}
