package benchrun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// benchRecords are five sent requests with known timings, from t0:
//
//	successful, targeted 0 ms,  sent 1 ms,  ended 101 ms: dispatch 1 ms, latency 100 ms
//	successful, targeted 10 ms, sent 13 ms, ended 213 ms: dispatch 3 ms, latency 200 ms
//	errored http_5xx,           dispatch 2 ms
//	errored timeout,            dispatch 5 ms
//	incomplete (cancelled),     dispatch 4 ms
func benchRecords() []*probe.Record {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	return []*probe.Record{
		{Outcome: probe.Successful, TargetedStart: at(0), RequestStart: at(1), End: at(101)},
		{Outcome: probe.Successful, TargetedStart: at(10), RequestStart: at(13), End: at(213)},
		{Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx, TargetedStart: at(20), RequestStart: at(22), End: at(30)},
		{Outcome: probe.Errored, ErrorType: probe.ErrorTimeout, TargetedStart: at(30), RequestStart: at(35), End: at(90)},
		{Outcome: probe.Incomplete, ErrorType: probe.ErrorCanceled, TargetedStart: at(40), RequestStart: at(44), End: at(50)},
	}
}

func samplesOf(recs []*probe.Record) []Sample {
	out := make([]Sample, len(recs))
	for i, r := range recs {
		out[i] = sampleOf(r)
	}
	return out
}

func secs(ms float64) *float64 {
	v := (time.Duration(ms * float64(time.Millisecond))).Seconds()
	return &v
}

func TestNewBenchReport(t *testing.T) {
	const mib = 1 << 20
	dropped := map[probe.DropReason]int64{probe.DropQueueFull: 2, probe.DropShutdown: 1}
	// Dispatch delays sorted: 1, 2, 3, 4, 5 ms: p50 is rank ⌈0.5·5⌉ = 3 (3 ms),
	// p99 rank ⌈0.99·5⌉ = 5 (5 ms). Latencies 100, 200 ms: p50 rank 1, p99 rank 2.
	wantDispatch := Delays{Count: 5, P50: secs(3), P99: secs(5), Max: secs(5)}
	wantLatency := Delays{Count: 2, P50: secs(100), P99: secs(200), Max: secs(200)}
	tests := []struct {
		name string
		run  Result
		want Report
	}{{
		name: "schedule kept: 5 sent in 2.5 s at 2 req/s",
		run: Result{Rate: 2, Window: 2500 * time.Millisecond, Scheduled: 8, Dropped: dropped,
			Samples: samplesOf(benchRecords()), CPU: 1500 * time.Millisecond, PeakRSS: 10 * mib},
		want: Report{
			RequestedRate: 2, WindowSeconds: 2.5, Scheduled: 8, Sent: 5,
			AchievedRate: 2, RateError: 0, // 5 / 2.5 s = 2 req/s, as asked
			Completed: 4, Successful: 2, Errored: 2,
			ErroredByType: map[string]int64{"http_5xx": 1, "timeout": 1},
			Incomplete:    1, IncompleteByType: map[string]int64{"canceled": 1},
			Dropped: 3, DroppedByReason: map[string]int64{"queue_full": 2, "shutdown": 1},
			DispatchDelay: wantDispatch, Latency: wantLatency,
			CPUSeconds: 1.5, CPUSecondsPer1000: 300, // 1.5 s / 5 requests · 1000
			PeakRSSBytes: 10 * mib,
		},
	}, {
		name: "half the rate: 5 sent in 2.5 s at 4 req/s",
		run: Result{Rate: 4, Window: 2500 * time.Millisecond, Scheduled: 5,
			Samples: samplesOf(benchRecords()), CPU: 500 * time.Millisecond},
		want: Report{
			RequestedRate: 4, WindowSeconds: 2.5, Scheduled: 5, Sent: 5,
			AchievedRate: 2, RateError: -0.5, // (2 − 4) / 4
			Completed: 4, Successful: 2, Errored: 2,
			ErroredByType: map[string]int64{"http_5xx": 1, "timeout": 1},
			Incomplete:    1, IncompleteByType: map[string]int64{"canceled": 1}, DroppedByReason: map[string]int64{},
			DispatchDelay: wantDispatch, Latency: wantLatency,
			CPUSeconds: 0.5, CPUSecondsPer1000: 100, // 0.5 s / 5 · 1000
		},
	}, {
		// Slots at 0, 10, 20 ms lie in the 30 ms window; those at 30 and 40 ms
		// do not. Kept dispatch delays 1, 3, 2 ms: p50 rank ⌈1.5⌉ = 2 (2 ms), p99 rank 3.
		name: "slots past the window are left out",
		run: Result{Rate: 100, Window: 30 * time.Millisecond, Scheduled: 5,
			Samples: samplesOf(benchRecords()), CPU: 300 * time.Millisecond},
		want: Report{
			RequestedRate: 100, WindowSeconds: 0.03, Scheduled: 5, Sent: 3, AfterWindow: 2,
			AchievedRate: 100, RateError: 0, // 3 / 0.03 s
			Completed: 3, Successful: 2, Errored: 1, ErroredByType: map[string]int64{"http_5xx": 1},
			IncompleteByType: map[string]int64{}, DroppedByReason: map[string]int64{},
			DispatchDelay: Delays{Count: 3, P50: secs(2), P99: secs(3), Max: secs(3)}, Latency: wantLatency,
			CPUSeconds: 0.3, CPUSecondsPer1000: 100, // 0.3 s / 3 · 1000
		},
	}, {
		name: "nothing sent",
		run:  Result{Rate: 10, Window: time.Second, Scheduled: 1, Dropped: map[probe.DropReason]int64{probe.DropShutdown: 1}},
		want: Report{
			RequestedRate: 10, WindowSeconds: 1, Scheduled: 1, RateError: -1,
			ErroredByType: map[string]int64{}, IncompleteByType: map[string]int64{},
			Dropped: 1, DroppedByReason: map[string]int64{"shutdown": 1},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NewReport(tc.run)
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tc.want)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("report\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

func TestBenchReportText(t *testing.T) {
	rep := NewReport(Result{Rate: 2, Window: 2500 * time.Millisecond, Scheduled: 8,
		Dropped: map[probe.DropReason]int64{probe.DropQueueFull: 2}, Samples: samplesOf(benchRecords()),
		CPU: 1500 * time.Millisecond, PeakRSS: 10 << 20})
	var b strings.Builder
	rep.WriteText(&b, "title")
	for _, want := range []string{
		"title\n",
		"achieved rate    2.00 req/s (+0.000 %): 5 sent in 2.500 s, 8 scheduled\n",
		"completed        4 (successful 2, errored 2: http_5xx 1, timeout 1)\n",
		"dropped          2: queue_full 2\n",
		"dispatch delay   p50 3.000 ms, p99 5.000 ms, max 5.000 ms (n=5)\n",
		"latency          p50 100.000 ms, p99 200.000 ms, max 200.000 ms (n=2)",
		"CPU              1.500 s user+sys, 300.0000 s per 1000 requests\n",
		"peak RSS         10.0 MiB\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

// A request llmprober could not carry out is incomplete of its own type,
// shown apart from the requests cancelled at the end.
func TestBenchReportProberFailures(t *testing.T) {
	r := NewReport(Result{Rate: 1, Window: time.Second})
	r.count(Sample{Outcome: probe.Incomplete, ErrorType: probe.ErrorProber})
	r.count(Sample{Outcome: probe.Incomplete, ErrorType: probe.ErrorCanceled})
	var b strings.Builder
	r.WriteText(&b, "t")
	want := "  incomplete       2 (canceled: in flight at the end; prober: llmprober out of a resource: canceled 1, prober 1)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report:\n%s\nwant the line %q", b.String(), want)
	}
}
