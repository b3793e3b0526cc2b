package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/sim"
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

func samplesOf(recs []*probe.Record) []benchSample {
	out := make([]benchSample, len(recs))
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
	wantDispatch := benchDelays{Count: 5, P50: secs(3), P99: secs(5), Max: secs(5)}
	wantLatency := benchDelays{Count: 2, P50: secs(100), P99: secs(200), Max: secs(200)}
	tests := []struct {
		name string
		run  benchRun
		want benchReport
	}{{
		name: "schedule kept: 5 sent in 2.5 s at 2 req/s",
		run: benchRun{Rate: 2, Window: 2500 * time.Millisecond, Scheduled: 8, Dropped: dropped,
			Samples: samplesOf(benchRecords()), CPU: 1500 * time.Millisecond, PeakRSS: 10 * mib},
		want: benchReport{
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
		run: benchRun{Rate: 4, Window: 2500 * time.Millisecond, Scheduled: 5,
			Samples: samplesOf(benchRecords()), CPU: 500 * time.Millisecond},
		want: benchReport{
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
		run: benchRun{Rate: 100, Window: 30 * time.Millisecond, Scheduled: 5,
			Samples: samplesOf(benchRecords()), CPU: 300 * time.Millisecond},
		want: benchReport{
			RequestedRate: 100, WindowSeconds: 0.03, Scheduled: 5, Sent: 3, AfterWindow: 2,
			AchievedRate: 100, RateError: 0, // 3 / 0.03 s
			Completed: 3, Successful: 2, Errored: 1, ErroredByType: map[string]int64{"http_5xx": 1},
			IncompleteByType: map[string]int64{}, DroppedByReason: map[string]int64{},
			DispatchDelay: benchDelays{Count: 3, P50: secs(2), P99: secs(3), Max: secs(3)}, Latency: wantLatency,
			CPUSeconds: 0.3, CPUSecondsPer1000: 100, // 0.3 s / 3 · 1000
		},
	}, {
		name: "nothing sent",
		run:  benchRun{Rate: 10, Window: time.Second, Scheduled: 1, Dropped: map[probe.DropReason]int64{probe.DropShutdown: 1}},
		want: benchReport{
			RequestedRate: 10, WindowSeconds: 1, Scheduled: 1, RateError: -1,
			ErroredByType: map[string]int64{}, IncompleteByType: map[string]int64{},
			Dropped: 1, DroppedByReason: map[string]int64{"shutdown": 1},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := newBenchReport(tc.run)
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tc.want)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("report\n got %s\nwant %s", gotJSON, wantJSON)
			}
		})
	}
}

func TestBenchReportText(t *testing.T) {
	rep := newBenchReport(benchRun{Rate: 2, Window: 2500 * time.Millisecond, Scheduled: 8,
		Dropped: map[probe.DropReason]int64{probe.DropQueueFull: 2}, Samples: samplesOf(benchRecords()),
		CPU: 1500 * time.Millisecond, PeakRSS: 10 << 20})
	var b strings.Builder
	rep.writeText(&b, "title")
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

func TestBenchAgainstSim(t *testing.T) {
	s, err := sim.Start(sim.Config{OutputTokens: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-streamed", true: "streamed"}[stream], func(t *testing.T) {
			args := []string{"bench", "--target-url", s.URL() + "/v1", "--model", sim.DefaultModel,
				"--rate", "50", "--duration", "200ms", "--output-tokens", "8", "--json"}
			if stream {
				args = append(args, "--stream")
			}
			var stdout, stderr bytes.Buffer
			if err := Run(context.Background(), args, &stdout, &stderr, nil); err != nil {
				t.Fatalf("bench: %v\n%s", err, stderr.String())
			}
			var rep benchReport
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
			}
			checkSimReport(t, rep)
		})
	}
}

// checkSimReport checks the accounting of a 200 ms run at 50 req/s against a
// sim without faults: slots at 0, 20, …, 180 ms, so at most 10 are sent.
func checkSimReport(t *testing.T, rep benchReport) {
	t.Helper()
	if rep.Sent < 1 || rep.Sent > 10 {
		t.Errorf("sent = %d, want 1 to 10", rep.Sent)
	}
	if rep.Successful+rep.Errored+rep.Incomplete != rep.Sent || rep.Completed != rep.Successful+rep.Errored {
		t.Errorf("outcomes do not add up: %+v", rep)
	}
	if rep.Errored != 0 || rep.Scheduled != rep.Sent+rep.Dropped+rep.AfterWindow {
		t.Errorf("errored %d, scheduled %d, sent %d, dropped %d, after window %d: want no error and scheduled = sent + dropped + after window",
			rep.Errored, rep.Scheduled, rep.Sent, rep.Dropped, rep.AfterWindow)
	}
	if rep.WindowSeconds != 0.2 || rep.AchievedRate != float64(rep.Sent)/0.2 {
		t.Errorf("window %v s, achieved %v req/s with %d sent; want 0.2 s and sent / 0.2", rep.WindowSeconds, rep.AchievedRate, rep.Sent)
	}
	if rep.DispatchDelay.Count != rep.Sent || rep.Latency.Count != rep.Successful {
		t.Errorf("dispatch delays %d, latencies %d; want %d and %d", rep.DispatchDelay.Count, rep.Latency.Count, rep.Sent, rep.Successful)
	}
	if rep.CPUSeconds <= 0 || rep.PeakRSSBytes <= 0 {
		t.Errorf("cpu %v s, peak RSS %d bytes: want both read", rep.CPUSeconds, rep.PeakRSSBytes)
	}
}

func TestBenchBadCommandLine(t *testing.T) {
	base := []string{"bench", "--target-url", "http://127.0.0.1:1/v1", "--model", "m"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no target", []string{"bench", "--rate", "1", "--duration", "1s"}, "--target-url and --model are required"},
		{"zero rate", append(base, "--rate", "0", "--duration", "1s"), "--rate must be positive"},
		{"negative rate", append(base, "--rate", "-5", "--duration", "1s"), "--rate must be positive"},
		{"no duration", append(base, "--rate", "1"), "--duration must be within"},
		{"too long", append(base, "--rate", "1", "--duration", "2h"), "--duration must be within"},
		{"too many requests", append(base, "--rate", "5000", "--duration", "1h"), "at most 10000000 requests"},
		{"stray argument", append(base, "--rate", "1", "--duration", "1s", "extra"), "unexpected arguments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), tc.args, &stdout, &stderr, nil)
			if !errors.Is(err, errUsage) || exitCode(err) != 2 {
				t.Fatalf("err = %v, want usage error (exit 2)", err)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr = %q, want it to contain %q", stderr.String(), tc.want)
			}
		})
	}
}

func TestBenchInvalidTarget(t *testing.T) {
	args := []string{"bench", "--target-url", "ftp://127.0.0.1/v1", "--model", "m", "--rate", "1", "--duration", "1s"}
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), args, &stdout, &stderr, nil)
	if !errors.Is(err, errInvalid) || !strings.Contains(err.Error(), "base_url") {
		t.Fatalf("err = %v, want an invalid configuration naming base_url", err)
	}
}

// A request llmprober could not carry out is incomplete of its own type,
// shown apart from the requests cancelled at the end.
func TestBenchReportProberFailures(t *testing.T) {
	r := newBenchReport(benchRun{Rate: 1, Window: time.Second})
	r.count(benchSample{Outcome: probe.Incomplete, ErrorType: probe.ErrorProber})
	r.count(benchSample{Outcome: probe.Incomplete, ErrorType: probe.ErrorCanceled})
	var b strings.Builder
	r.writeText(&b, "t")
	want := "  incomplete       2 (canceled: in flight at the end; prober: llmprober out of a resource: canceled 1, prober 1)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report:\n%s\nwant the line %q", b.String(), want)
	}
}
