package wiring

import (
	"testing"

	"github.com/llmprober/llmprober/config"
)

func TestServerConnections(t *testing.T) {
	targets := func(concurrency ...int) []config.Target {
		var ts []config.Target
		for _, c := range concurrency {
			ts = append(ts, config.Target{Schedule: config.Schedule{MaxConcurrency: c}})
		}
		return ts
	}
	tests := []struct {
		name    string
		nofile  uint64
		targets []config.Target
		want    int
	}{
		// 1024 − (10 × (2·4 + 2) + 64) = 860, halved.
		{"1024 descriptors, ten targets of 4", 1024, targets(4, 4, 4, 4, 4, 4, 4, 4, 4, 4), 430},
		{"many descriptors: the ceiling", 1 << 20, targets(4), 1024},
		{"the probes need them all: the floor", 256, targets(100), 8},
		// 100 − (2·1 + 2 + 64) = 32, halved.
		{"a small limit", 100, targets(1), 16},
		{"little left: the floor", 70, targets(1), 8},
		{"unknown limit: the ceiling", 0, targets(4), 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServerConnections(tt.nofile, tt.targets); got != tt.want {
				t.Errorf("ServerConnections(%d) = %d, want %d", tt.nofile, got, tt.want)
			}
		})
	}
}
