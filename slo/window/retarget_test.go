package window

import (
	"testing"
	"time"

	"github.com/llmprober/llmprober/slo"
)

// Retarget changes the attainment target a window reports and keeps its
// records; a changed name or threshold is refused.
func TestRetarget(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{10 * time.Second}, Objectives: []slo.Objective{latencyObjective}})
	finish(s, attainmentRequests(0, 500)...)
	clk.Set(at(10000))
	looser := latencyObjective
	looser.Attainment, looser.Period = 0.9, 7*24*time.Hour
	if err := s.Retarget([]slo.Objective{looser}); err != nil {
		t.Fatal(err)
	}
	a := s.Snapshot(clk.Now(), 10*time.Second).Objectives[0]
	if a.Target != 0.9 || a.Evaluated != 10 || a.Conforming != 8 {
		t.Errorf("after Retarget: target %v, evaluated %v, conforming %v; want 0.9, 10, 8 (the records kept)", a.Target, a.Evaluated, a.Conforming)
	}
	if got := s.Objectives()[0]; got.Attainment != 0.9 || got.Period != 7*24*time.Hour {
		t.Errorf("Objectives = %+v, want the new attainment and period", got)
	}
	stricter := latencyObjective
	stricter.Thresholds = []slo.Threshold{{Quantity: slo.Latency, Max: time.Millisecond}}
	renamed := latencyObjective
	renamed.Name = "other"
	for _, bad := range [][]slo.Objective{{stricter}, {renamed}, nil} {
		if err := s.Retarget(bad); err == nil {
			t.Errorf("Retarget(%+v) succeeded", bad)
		}
	}
	if s.Objectives()[0].Attainment != 0.9 {
		t.Error("a refused Retarget changed the objective sets")
	}
}
