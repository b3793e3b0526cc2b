package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

func TestSimConfig(t *testing.T) {
	tests := []struct {
		name      string
		flags     simFlags
		wantFault float64 // probability of each fault kind
		wantErr   string
	}{
		// 0.8 spread over the 8 fault kinds is 0.1 each.
		{"faults spread evenly", simFlags{ttft: time.Millisecond, outputTokens: 64, faultRate: 0.8}, 0.1, ""},
		{"no faults", simFlags{outputTokens: 64}, 0, ""},
		{"fault rate above 1", simFlags{outputTokens: 64, faultRate: 1.5}, 0, "--fault-rate: must be within [0, 1] (got 1.5)"},
		{"negative fault rate", simFlags{outputTokens: 64, faultRate: -0.1}, 0, "--fault-rate: must be within [0, 1] (got -0.1)"},
		{"no output", simFlags{outputTokens: 0}, 0, "--output-tokens: must be at least 1 (got 0)"},
		{"negative ttft", simFlags{outputTokens: 1, ttft: -time.Second}, 0, "--ttft: must not be negative (got -1s)"},
		{"negative itl", simFlags{outputTokens: 1, itl: -time.Millisecond}, 0, "--itl: must not be negative (got -1ms)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := simConfig(tc.flags)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.OutputTokens != tc.flags.outputTokens || cfg.TTFT.Mean != tc.flags.ttft {
				t.Errorf("config %+v does not carry the flags %+v", cfg, tc.flags)
			}
			for _, f := range sim.Faults() {
				if cfg.Faults[f] != tc.wantFault {
					t.Errorf("fault %s: probability %v, want %v", f, cfg.Faults[f], tc.wantFault)
				}
			}
		})
	}
}

var simURL = regexp.MustCompile(`endpoint: (http://\S+/v1)`)

func TestSimCommandServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"sim", "--listen-address", "127.0.0.1:0", "--ttft", "0s", "--itl", "0s", "--output-tokens", "3"},
			stdout, io.Discard, nil)
	}()
	base := waitForSimURL(t, stdout, done)
	resp, err := http.Post(base+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"sim-model","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	// 3 output tokens, as asked with --output-tokens.
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"completion_tokens":3`)) {
		t.Errorf("status %d, body %s; want 200 with 3 completion tokens", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("sim ended with %v, want nil", err)
	}
}

// waitForSimURL polls stdout until the sim prints its base URL.
func waitForSimURL(t *testing.T, stdout *syncBuffer, done <-chan error) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := simURL.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("sim exited early: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatal("sim printed no address")
	return ""
}

func TestSimCommandBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "--fault-rate", "2"},
		{"sim", "--output-tokens", "0"},
		{"sim", "extra"},
	} {
		var stderr bytes.Buffer
		if err := Run(context.Background(), args, io.Discard, &stderr, nil); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want usage error", args, err)
		}
	}
}
