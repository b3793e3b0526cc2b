package window

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// historySettings are 10 s points kept for 1 minute (6 points).
var historySettings = Settings{HistoryInterval: 10 * time.Second, HistoryRetention: time.Minute}

// setAt moves the fake clock to t0 + ms milliseconds.
func setAt(clk interface{ Set(time.Time) }, ms int64) { clk.Set(at(ms)) }

// TestHistoryCounts checks every counter and the concurrency of three
// points against counts worked out by hand: point 0 holds a due, sent and
// successful request in flight from 1 s to 3 s (0.2 busy on average);
// point 1 a due and dropped request and a sent one in flight from 14 s,
// which ends errored at 25 s in point 2 (busy 6 s and 5 s).
func TestHistoryCounts(t *testing.T) {
	s, clk := newTestStore(t, historySettings)
	setAt(clk, 1000)
	s.Scheduled(target)
	s.Started(target)
	setAt(clk, 3000)
	s.Finished(req{seq: 1, targeted: 1000, start: 1000, first: 1500, firstOut: 1500, last: 2500, end: 3000, prompt: 5, output: 11}.record())
	setAt(clk, 12000)
	s.Scheduled(target)
	s.Dropped(target, probe.DropQueueFull)
	setAt(clk, 14000)
	s.Started(target)
	setAt(clk, 25000)
	s.Finished(req{seq: 2, targeted: 13000, start: 14000, first: -1, firstOut: -1, last: -1, end: 25000, outcome: probe.Errored}.record())
	setAt(clk, 31000)
	h := s.History(0)

	if len(h.Times) != 3 || !h.Times[0].Equal(t0) || !h.Times[2].Equal(at(20000)) {
		t.Fatalf("times = %v, want t0, t0+10s, t0+20s", h.Times)
	}
	eq := func(name string, got, want []uint32) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	eq("successful", h.Requests[0], []uint32{1, 0, 0})
	eq("errored", h.Requests[1], []uint32{0, 0, 1})
	eq("incomplete", h.Requests[2], []uint32{0, 0, 0})
	eq("scheduled", h.Scheduled, []uint32{1, 1, 0})
	eq("sent", h.Sent, []uint32{1, 1, 0})
	eq("dropped queue_full", h.Dropped[slices.Index(probe.DropReasons, probe.DropQueueFull)], []uint32{0, 1, 0})
	eq("output tokens", h.OutputTokens, []uint32{11, 0, 0})
	http5xx := slices.Index(HistoryErrorTypes(), probe.ErrorHTTP5xx)
	eq("http_5xx", h.Errors[http5xx], []uint32{0, 0, 1})
	for i, want := range []float64{0.2, 0.6, 0.5} {
		check(t, "concurrency", h.Concurrency[i], want)
	}
	ttft := h.Percentiles[slices.Index(HistoryQuantities, TTFT)]
	checkSingle(t, "TTFT p50 of point 0", ttft[0][0], 0.5)
	check(t, "TTFT p50 of point 1", ttft[0][1], math.NaN())
	dd := h.Percentiles[slices.Index(HistoryQuantities, DispatchDelay)]
	checkSingle(t, "dispatch delay p99 of point 2 (errored request)", dd[2][2], 1)
	lat := h.Percentiles[slices.Index(HistoryQuantities, RequestLatency)]
	check(t, "latency p50 of point 2 (errored: not counted)", lat[0][2], math.NaN())
}

// TestHistoryPercentiles checks the ranks: ten latencies 1..10 s give
// p50 5 (rank ⌈0.5·10⌉), p90 9, p99 10; ITL 0.1 s over 11 tokens (weight
// 10) and 0.5 s over 2 (weight 1) give p50 and p90 0.1 (cumulative weight
// 10 ≥ 5.5, 9.9) and p99 0.5 (10 < 10.89).
func TestHistoryPercentiles(t *testing.T) {
	s, clk := newTestStore(t, historySettings)
	for i := range int64(10) {
		setAt(clk, 100+i*100)
		s.Started(target)
		s.Finished(req{seq: uint64(i), targeted: -1, start: 0, first: -1, firstOut: -1, last: -1, end: (i + 1) * 1000, output: 1, unary: true}.record())
	}
	setAt(clk, 2000)
	s.Started(target)
	s.Finished(req{seq: 20, targeted: -1, start: 0, first: 100, firstOut: 100, last: 1100, end: 1200, output: 11}.record())
	s.Started(target)
	s.Finished(req{seq: 21, targeted: -1, start: 0, first: 100, firstOut: 100, last: 600, end: 700, output: 2}.record())
	setAt(clk, 10000)
	h := s.History(0)
	if len(h.Times) != 1 {
		t.Fatalf("%d points, want 1", len(h.Times))
	}
	lat := h.Percentiles[slices.Index(HistoryQuantities, RequestLatency)]
	// The two streamed requests add 1.2 s and 0.7 s: 12 latencies sorted
	// 0.7, 1, 1.2, 2, …, 10, ranks 6, 11, 12.
	for k, want := range []float64{4, 9, 10} {
		checkSingle(t, "latency "+HistoryLevels[k].Key(), lat[k][0], want)
	}
	itl := h.Percentiles[slices.Index(HistoryQuantities, ITL)]
	for k, want := range []float64{0.1, 0.1, 0.5} {
		checkSingle(t, "ITL "+HistoryLevels[k].Key(), itl[k][0], want)
	}
	if h.Approximate[0] {
		t.Error("point marked approximate with 12 values")
	}
	if h.Requests[0][0] != 12 || h.OutputTokens[0] != 10+13 {
		t.Errorf("requests %d, output tokens %d; want 12 and 23", h.Requests[0][0], h.OutputTokens[0])
	}
}

// TestHistoryObjectives checks the verdict counts per point: the 1 s
// latency bound is met by 0.5 s, breached by 2 s and by an error; an
// incomplete request is not evaluated.
func TestHistoryObjectives(t *testing.T) {
	set := historySettings
	set.Objectives = []slo.Objective{latencyObjective}
	s, clk := newTestStore(t, set)
	setAt(clk, 1000)
	finish(s,
		req{seq: 1, targeted: -1, start: 0, first: 100, firstOut: 100, last: 400, end: 500, output: 5},
		req{seq: 2, targeted: -1, start: 0, first: 100, firstOut: 100, last: 1900, end: 2000, output: 5},
		req{seq: 3, targeted: -1, start: 0, first: -1, firstOut: -1, last: -1, end: 600, outcome: probe.Errored},
		req{seq: 4, targeted: -1, start: 0, first: -1, firstOut: -1, last: -1, end: 600, outcome: probe.Incomplete})
	setAt(clk, 20000)
	h := s.History(0)
	if len(h.Objectives) != 1 || h.Objectives[0].Name != "fast" || h.Objectives[0].Target != 0.99 {
		t.Fatalf("objectives = %+v", h.Objectives)
	}
	o := h.Objectives[0]
	if !slices.Equal(o.Evaluated, []uint32{3, 0}) || !slices.Equal(o.Conforming, []uint32{1, 0}) {
		t.Errorf("evaluated %v conforming %v, want [3 0] and [1 0]", o.Evaluated, o.Conforming)
	}
}

// TestHistoryRetention checks the ring: after 95 s of one request due per
// second, the last 6 closed points (30 s to 90 s) are held, 10 due each; a
// span of 20 s returns the last 2. After an idle gap of 10 minutes with a
// request in flight, each of the 6 points is empty with concurrency 1.
func TestHistoryRetention(t *testing.T) {
	s, clk := newTestStore(t, historySettings)
	for i := range int64(95) {
		setAt(clk, i*1000)
		s.Scheduled(target)
	}
	h := s.History(0)
	if len(h.Times) != 6 || !h.Times[0].Equal(at(30000)) || !h.Times[5].Equal(at(80000)) {
		t.Fatalf("times = %v, want t0+30s … t0+80s", h.Times)
	}
	if !slices.Equal(h.Scheduled, []uint32{10, 10, 10, 10, 10, 10}) {
		t.Errorf("scheduled = %v", h.Scheduled)
	}
	if h := s.History(20 * time.Second); len(h.Times) != 2 || !h.Times[0].Equal(at(70000)) {
		t.Errorf("span 20s: times = %v, want t0+70s, t0+80s", h.Times)
	}
	s.Started(target)
	setAt(clk, 95000+600000)
	h = s.History(0)
	if len(h.Times) != 6 || !h.Times[5].Equal(at(680000)) {
		t.Fatalf("after the gap: times = %v, want … t0+680s", h.Times)
	}
	for i := range 6 {
		if h.Scheduled[i] != 0 || !near(h.Concurrency[i], 1) {
			t.Errorf("point %d: scheduled %d concurrency %v, want 0 and 1", i, h.Scheduled[i], h.Concurrency[i])
		}
	}
}

// TestHistoryAligned checks that points start at multiples of the
// interval of wall-clock time, whenever the first event comes.
func TestHistoryAligned(t *testing.T) {
	s, clk := newTestStore(t, historySettings)
	setAt(clk, 7300)
	s.Scheduled(target)
	setAt(clk, 21000)
	h := s.History(0)
	if len(h.Times) != 2 || !h.Times[0].Equal(t0) || h.Scheduled[0] != 1 {
		t.Errorf("times %v scheduled %v, want a point at t0 with 1 due", h.Times, h.Scheduled)
	}
}

// TestHistorySampled checks that past HistorySampleCap values in one
// point the percentiles come from a sample, are marked approximate, and
// stay close: 5000 latencies 1..5000 ms have p50 2.5 s.
func TestHistorySampled(t *testing.T) {
	s, clk := newTestStore(t, historySettings)
	setAt(clk, 1)
	for i := range int64(5000) {
		s.Started(target)
		s.Finished(req{seq: uint64(i), targeted: -1, start: 0, first: -1, firstOut: -1, last: -1, end: i + 1, output: 1, unary: true}.record())
	}
	setAt(clk, 10000)
	h := s.History(0)
	if !h.Approximate[0] || h.Requests[0][0] != 5000 {
		t.Fatalf("approximate %v, requests %d; want true and 5000", h.Approximate[0], h.Requests[0][0])
	}
	// 256 of 5000 values: by the Dvoretzky–Kiefer–Wolfowitz inequality the
	// sample median lies between the true 40th and 60th percentiles with
	// probability 1 − 2e^(−2·256·0.1²) > 0.98, here at a fixed seed.
	if p50 := h.Percentiles[0][0][0]; math.Abs(p50-2.5) > 0.5 {
		t.Errorf("sampled p50 = %v, want about 2.5", p50)
	}
}

// TestHistoryEmpty checks that before the first event there is no point,
// and a series of each kind, empty.
func TestHistoryEmpty(t *testing.T) {
	s, _ := newTestStore(t, historySettings)
	h := s.History(0)
	if len(h.Times) != 0 || h.Interval != 10*time.Second || h.Retention != time.Minute ||
		len(h.Requests) != len(probe.Outcomes) || len(h.Errors) != len(HistoryErrorTypes()) ||
		len(h.Dropped) != len(probe.DropReasons) || len(h.Percentiles) != len(HistoryQuantities) {
		t.Errorf("history = %+v", h)
	}
}

// TestHistorySettings checks the bad settings.
func TestHistorySettings(t *testing.T) {
	for _, set := range []Settings{
		{HistoryInterval: time.Millisecond},
		{HistoryInterval: 10 * time.Second, HistoryRetention: 15 * time.Second},
		{HistoryInterval: time.Second, HistoryRetention: 200000 * time.Second},
	} {
		if _, err := NewStore(target, set); err == nil {
			t.Errorf("%+v: no error", set)
		}
	}
}

// checkSingle compares a percentile, kept in single precision, with its
// expected value to float32's precision.
func checkSingle(t *testing.T, name string, got, want float64) {
	t.Helper()
	if float32(got) != float32(want) {
		t.Errorf("%s = %v, want %v (single precision)", name, got, want)
	}
}
