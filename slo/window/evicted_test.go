package window

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// TestEvictedOnly checks a window that holds evicted values of a metric of
// two outcomes and no sampled one: one record kept a bucket (the cap's
// least), a successful request without a targeted start (so without a
// dispatch delay) kept, an errored and an incomplete one with dispatch
// delays of 2 ms and 4 ms evicted. Their dispatch delays, all outcomes
// together, are count 2, mean 3 ms, min 2 ms, max 4 ms, approximate and
// without percentiles; before, summarizing them searched an empty sample
// and the snapshot panicked. The seeds vary the record kept; the test
// requires that some kept the successful one.
func TestEvictedOnly(t *testing.T) {
	hit := 0
	for seed := range uint64(32) {
		s, clk := newTestStore(t, Settings{Windows: []time.Duration{time.Minute}, SampleCap: Buckets, Seed: seed})
		recs := []req{
			{seq: 1, targeted: -1, start: 1000, first: 1010, firstOut: 1010, last: 1020, end: 1030, output: 2},
			{seq: 2, targeted: 998, start: 1000, first: -1, firstOut: -1, last: -1, end: 1031, outcome: probe.Errored},
			{seq: 3, targeted: 996, start: 1000, first: -1, firstOut: -1, last: -1, end: 1032, outcome: probe.Incomplete},
		}
		finish(s, recs...)
		clk.Set(at(2000))
		snap := s.Snapshot(at(2000), time.Minute)
		kept := snap.Records()
		if len(kept) != 1 || kept[0].Request.Outcome != probe.Successful {
			continue
		}
		hit++
		dd := snap.Summary(DispatchDelay)
		all := dd.All
		if !all.Approximate || all.Count != 2 || all.Mean == nil || !near(*all.Mean, 0.003) ||
			*all.Min != 0.002 || *all.Max != 0.004 {
			t.Errorf("seed %d: dispatch delay of all %+v, want count 2, mean 3 ms, 2 ms to 4 ms, approximate", seed, all)
		}
		if v, ok := all.Percentile(stats.P50); ok {
			t.Errorf("seed %d: median %v without a sampled value", seed, v)
		}
		if e := dd.Of(stats.StatusErrored); e.Count != 1 || *e.Mean != 0.002 {
			t.Errorf("seed %d: errored %+v, want count 1, mean 2 ms", seed, e)
		}
	}
	if hit == 0 {
		t.Fatal("no seed kept the successful record")
	}
}
