package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/benchrun"
	"github.com/llmprober/llmprober/probe/sim"
)

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
			var rep benchrun.Report
			if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
			}
			checkSimReport(t, rep)
		})
	}
}

// checkSimReport checks the accounting of a 200 ms run at 50 req/s against a
// sim without faults: slots at 0, 20, …, 180 ms, so at most 10 are sent.
func checkSimReport(t *testing.T, rep benchrun.Report) {
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
