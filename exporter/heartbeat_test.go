package exporter

import (
	"context"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

// TestHeartbeatIsTheCollectionTime: every scrape reads the clock anew, so
// llmprober_collection_timestamp_seconds is the time of the scrape.
func TestHeartbeatIsTheCollectionTime(t *testing.T) {
	clk := clock.NewFake(t0)
	m, err := NewMetrics(context.Background(), Options{Getenv: noEnv, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	for _, d := range []time.Duration{0, 15 * time.Second, 15*time.Second + 250*time.Millisecond} {
		clk.Set(t0.Add(d))
		mt := findMetric(gather(t, m), "llmprober_collection_timestamp_seconds", map[string]string{})
		// t0 is 1735787045 s after the epoch.
		if want := 1735787045 + d.Seconds(); mt == nil || mt.GetGauge().GetValue() != want {
			t.Errorf("at t0+%v: heartbeat %v, want %.3f", d, mt, want)
		}
	}
}
