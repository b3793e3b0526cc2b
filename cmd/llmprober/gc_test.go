package main

import (
	"runtime/metrics"
	"testing"
)

// TestRunGCPercent checks the collector's target of run: 50 without GOGC
// (on /metrics as go_gc_gogc_percent too), the process's own with GOGC in
// the environment (the runtime read it at start), the previous one again
// once run returns.
func TestRunGCPercent(t *testing.T) {
	before := gcPercent()
	if before == daemonGCPercent {
		t.Skipf("the test process already runs at GOGC=%d", before)
	}
	for _, tc := range []struct {
		name string
		gogc bool
		want int
	}{{"default", false, daemonGCPercent}, {"GOGC set", true, before}} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t)
			env := map[string]string{"LLMPROBER_TARGET_URL": s.URL() + "/v1", "LLMPROBER_MODEL": "sim-model",
				"LLMPROBER_RATE": "1", "LLMPROBER_LISTEN_ADDRESS": "127.0.0.1:0"}
			if tc.gogc {
				env["GOGC"] = "80"
			}
			r := startRun(t, []string{"run"}, env)
			if got := gcPercent(); got != tc.want {
				t.Errorf("GOGC while running = %d, want %d", got, tc.want)
			}
			fams, _ := r.scrape(t)
			if got, ok := gauge(fams, "go_gc_gogc_percent", nil); !ok || got != float64(tc.want) {
				t.Errorf("go_gc_gogc_percent = %v (found %v), want %d", got, ok, tc.want)
			}
			if err := r.stop(); err != nil {
				t.Fatal(err)
			}
			if got := gcPercent(); got != before {
				t.Errorf("GOGC after run = %d, want %d again", got, before)
			}
		})
	}
}

// gcPercent returns the collector's target in force.
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
