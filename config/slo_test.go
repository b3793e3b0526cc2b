package config

import (
	"reflect"
	"testing"
	"time"

	"github.com/llmprober/llmprober/slo"
)

func TestObjectiveSLO(t *testing.T) {
	a := 0.995
	c := Objective{Name: "default", Latency: new(10 * time.Second), TTFT: new(500 * time.Millisecond),
		Attainment: &a, Period: Period(30 * 24 * time.Hour)}
	want := slo.Objective{Name: "default", Attainment: 0.995, Period: 720 * time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.TTFT, Max: 500 * time.Millisecond}, {Quantity: slo.Latency, Max: 10 * time.Second}}}
	if got := c.SLO(); !reflect.DeepEqual(got, want) {
		t.Errorf("SLO = %+v, want %+v", got, want)
	}
	tg := Target{Objectives: []Objective{c, c}}
	if got := tg.SLOObjectives(); len(got) != 2 || !reflect.DeepEqual(got[1], want) {
		t.Errorf("SLOObjectives = %+v, want two of %+v", got, want)
	}
}
