package exporter

import (
	"reflect"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

func TestSLOBoundaries(t *testing.T) {
	objectives := []slo.Objective{
		alphaObjective, // ttft 0.3, itl 0.05
		{Name: "strict", Thresholds: []slo.Threshold{
			{Quantity: slo.TTFT, Max: 220 * time.Millisecond}, {Quantity: slo.Latency, Max: 10 * time.Second},
			{Quantity: slo.ScheduledLatency, Max: 12 * time.Second}, {Quantity: slo.TPOT, Max: 50 * time.Millisecond},
		}},
	}
	want := map[string][]float64{
		InstrumentTTFT: {0.22, 0.3}, InstrumentITL: {0.05}, InstrumentTPOT: {0.05},
		InstrumentOperationDuration: {10}, InstrumentScheduledLatency: {12},
	}
	if got := SLOBoundaries(objectives); !reflect.DeepEqual(got, want) {
		t.Errorf("SLOBoundaries = %v, want %v", got, want)
	}
}

func TestSLOCountersByReason(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	slow := alphaOK()
	slow.FirstToken = at(400) // TTFT 400−10 = 0.39 > 0.3; ITL (320−400)<0 still ≤ 0.05
	short := alphaOK()
	short.OutputTokens = 1 // ITL undefined
	unsent := alphaOK()
	unsent.Stream = false // TTFT cannot apply: excluded
	for _, r := range []*probe.Record{alphaOK(), slow, short, unsent, alphaErr(), alphaCanceled()} {
		o.Finished(r)
	}
	mfs := gather(t, m)
	set := map[string]string{"target": "alpha", "objective": "default"}
	// Evaluated: ok, slow, short, err = 4; conforming: ok = 1.
	if v := findMetric(mfs, "llmprober_slo_requests_evaluated_total", set).GetCounter().GetValue(); v != 4 {
		t.Errorf("evaluated = %v, want 4", v)
	}
	if v := findMetric(mfs, "llmprober_slo_requests_conforming_total", set).GetCounter().GetValue(); v != 1 {
		t.Errorf("conforming = %v, want 1", v)
	}
	for reason, want := range map[string]float64{"ttft": 1, "insufficient_output": 1, "http_5xx": 1, "itl": 0, "timeout": 0} {
		labels := map[string]string{"target": "alpha", "objective": "default", "reason": reason}
		if v := findMetric(mfs, "llmprober_slo_requests_nonconforming_total", labels).GetCounter().GetValue(); v != want {
			t.Errorf("nonconforming{reason=%q} = %v, want %v", reason, v, want)
		}
	}
}

func TestNewObserverRejectsBadObjectives(t *testing.T) {
	bad := alpha
	bad.Objectives = []slo.Objective{alphaObjective, alphaObjective}
	m, _ := newTestMetrics(t)
	if _, err := NewObserver(m, []Target{bad}); err == nil {
		t.Error("NewObserver accepted duplicate objective sets")
	}
}
