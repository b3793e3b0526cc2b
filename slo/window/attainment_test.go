package window

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// latencyObjective bounds the request latency to 1 s, target 99 %.
var latencyObjective = slo.Objective{Name: "fast", Attainment: 0.99, Period: 24 * time.Hour,
	Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: time.Second}}}

// attainmentRequests are 8 conforming requests (0.5 s, 5 output tokens
// each), one breaching the 1 s bound (2 s, 7 tokens), one errored and one
// incomplete, all ending within [start, start + 9.5 s]: 10 evaluated, 8
// conforming, 11 finished.
func attainmentRequests(startMs int64, step int64) []req {
	var out []req
	for i := range int64(8) {
		s := startMs + i*step
		out = append(out, req{seq: uint64(i), targeted: -1, start: s, first: s + 100, firstOut: s + 100,
			last: s + 400, end: s + 500, prompt: 3, output: 5})
	}
	s := startMs + 8*step
	out = append(out,
		req{seq: 8, targeted: -1, start: s, first: s + 100, firstOut: s + 100, last: s + 1900, end: s + 2000, prompt: 3, output: 7},
		req{seq: 9, targeted: -1, start: s, first: -1, firstOut: -1, last: -1, end: s + 300, outcome: probe.Errored},
		req{seq: 10, targeted: -1, start: s, first: s + 100, firstOut: s + 100, last: s + 200, end: s + 400, output: 2,
			outcome: probe.Incomplete})
	return out
}

func TestAttainmentHandComputed(t *testing.T) {
	tests := []struct {
		name        string
		windows     []time.Duration
		sampleCap   int
		step        int64 // ms between the requests' starts
		readAt      int64 // ms
		approximate bool
		length      float64 // s
	}{
		// The 10 s window [0, 10 s] holds every request, all kept.
		{"exact", []time.Duration{10 * time.Second}, 0, 500, 10000, false, 10},
		// A cap of 720 keeps one record per 1m/720 bucket; the requests
		// start together at 29 s, the 8 conforming ones end together at
		// 29.5 s in one bucket, so the window is approximate, its start on
		// the grid at 0: length 60 s.
		{"past the sample cap", []time.Duration{time.Minute}, 720, 0, 60000, true, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newTestStore(t, Settings{Windows: tt.windows, SampleCap: tt.sampleCap,
				Objectives: []slo.Objective{latencyObjective}})
			finish(s, attainmentRequests(map[bool]int64{false: 0, true: 29000}[tt.approximate], tt.step)...)
			clk.Set(at(tt.readAt))
			snap := s.Current(tt.windows[0])
			if snap.Approximate != tt.approximate || len(snap.Objectives) != 1 {
				t.Fatalf("approximate %v, %d objectives; want %v, 1", snap.Approximate, len(snap.Objectives), tt.approximate)
			}
			a := snap.Objectives[0]
			if a.Objective != "fast" || a.Target != 0.99 || a.Evaluated != 10 || a.Conforming != 8 ||
				a.ConformingOutputTokens != 40 {
				t.Errorf("%+v; want fast, 0.99, 10 evaluated, 8 conforming, 40 tokens", a)
			}
			// Ratio 8/10. Wilson at 0.95, z = 1.959964, z²/n = 0.3841459:
			// centre (0.8 + 0.1920729)/1.3841459 = 0.7167404; half-width
			// z/1.3841459 · √(0.8·0.2/10 + 0.3841459/40) = 0.2265773.
			check(t, "ratio", val(a.Ratio), 0.8)
			if a.CI == nil || math.Abs(a.CI.Lo-0.4901631) > 1e-6 || math.Abs(a.CI.Hi-0.9433177) > 1e-6 {
				t.Errorf("CI %+v, want [0.4901631, 0.9433177]", a.CI)
			}
			// Goodput 8 requests and 8 × 5 = 40 tokens over the length.
			check(t, "goodput", val(a.Goodput), 8/tt.length)
			check(t, "token goodput", val(a.OutputTokenGoodput), 40/tt.length)
			if val(a.Goodput) > val(snap.RequestRate.All) {
				t.Errorf("goodput %v above the request rate %v", val(a.Goodput), val(snap.RequestRate.All))
			}
		})
	}
}

// Without evaluated requests, or with intervals off, the ratio and interval
// are absent; before measuring, every figure is.
func TestAttainmentAbsent(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{10 * time.Second}, Objectives: []slo.Objective{latencyObjective}})
	finish(s, req{seq: 1, targeted: -1, start: 0, first: 100, firstOut: 100, last: 200, end: 300, outcome: probe.Incomplete, output: 1})
	clk.Set(at(10000))
	a := s.Current(10 * time.Second).Objectives[0]
	if a.Evaluated != 0 || a.Ratio != nil || a.CI != nil || val(a.Goodput) != 0 || a.Verdict != slo.Inconclusive {
		t.Errorf("only an incomplete request: %+v; want 0 evaluated, no ratio or interval, goodput 0, inconclusive", a)
	}
	off, err := NewStore(target, Settings{Windows: []time.Duration{10 * time.Second}, Confidence: 0, CacheTTL: -1,
		Clock: newFakeAt(t0), Objectives: []slo.Objective{latencyObjective}, Warmup: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	off.State(target, probe.StateReady, 0)
	if a := off.Current(10 * time.Second).Objectives[0]; a.Ratio != nil || a.Goodput != nil {
		t.Errorf("before measuring: %+v; want no figures", a)
	}
	finish(off, req{seq: 1, targeted: -1, start: 1000, first: 1100, firstOut: 1100, last: 1200, end: 1300, output: 3})
	if a := off.Snapshot(at(2000), 10*time.Second).Objectives[0]; a.Conforming != 1 || val(a.Ratio) != 1 || a.CI != nil ||
		a.Verdict != slo.Inconclusive {
		t.Errorf("intervals off: %+v; want 1 conforming, ratio 1, no interval, inconclusive", a)
	}
}

// TestAttainmentVerdict judges the 8 of 10 of attainmentRequests, Wilson
// interval [0.4902, 0.9433] at 0.95, against three targets: 0.4 is met
// (0.4902 ≥ 0.4), 0.9 inconclusive, 0.99 breached (0.9433 < 0.99).
func TestAttainmentVerdict(t *testing.T) {
	var objectives []slo.Objective
	for _, target := range []float64{0.4, 0.9, 0.99} {
		o := latencyObjective
		o.Name, o.Attainment = strconv.FormatFloat(target, 'f', -1, 64), target
		objectives = append(objectives, o)
	}
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{10 * time.Second}, Objectives: objectives})
	finish(s, attainmentRequests(0, 500)...)
	clk.Set(at(10000))
	var got []string
	for _, a := range s.Current(10 * time.Second).Objectives {
		got = append(got, a.Objective+" "+a.Verdict.String())
	}
	if want := "0.4 met, 0.9 inconclusive, 0.99 breached"; strings.Join(got, ", ") != want {
		t.Errorf("verdicts %q, want %q", strings.Join(got, ", "), want)
	}
}

func TestObjectiveSettingsErrors(t *testing.T) {
	tests := []struct {
		name       string
		objectives []slo.Objective
		want       string
	}{
		{"duplicate", []slo.Objective{latencyObjective, latencyObjective}, `objective "fast": duplicate name`},
		{"too many", make([]slo.Objective, MaxObjectives+1), "objectives: at most 8 objective sets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewStore(target, Settings{Objectives: tt.objectives}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
