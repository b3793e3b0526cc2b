package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const oneTarget = "targets:\n  - {name: a, base_url: 'http://127.0.0.1:8000/v1', model: m}\n"

func TestWindowSettings(t *testing.T) {
	tests := []struct {
		name       string
		yaml       string
		windows    []time.Duration
		confidence float64
		warmup     time.Duration
		sampleCap  int
	}{
		{"defaults", "", DefaultWindows(), 0.95, 0, 100000},
		{"null confidence turns intervals off", "confidence: null\n", DefaultWindows(), 0, 0, 100000},
		{"every setting", "windows: [90s, 2h]\nconfidence: 0.9\nwarmup: 1m\nwindow_sample_cap: 720\n",
			[]time.Duration{90 * time.Second, 2 * time.Hour}, 0.9, time.Minute, 720},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.yaml+oneTarget), "c.yml")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Windows, tt.windows) || c.ConfidenceLevel() != tt.confidence || c.Warmup != tt.warmup ||
				c.WindowSampleCap != tt.sampleCap {
				t.Errorf("windows %v confidence %v warmup %v cap %d; want %v %v %v %d", c.Windows, c.ConfidenceLevel(),
					c.Warmup, c.WindowSampleCap, tt.windows, tt.confidence, tt.warmup, tt.sampleCap)
			}
		})
	}
}

func TestWindowSettingsInCode(t *testing.T) {
	c := &Config{Targets: []Target{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}}}
	c.ApplyDefaults()
	if !slices.Equal(c.Windows, DefaultWindows()) || c.ConfidenceLevel() != 0.95 || c.WindowSampleCap != 100000 {
		t.Errorf("defaults in code: %v %v %d", c.Windows, c.ConfidenceLevel(), c.WindowSampleCap)
	}
	// Set after ApplyDefaults, a nil confidence turns the intervals off.
	c.Confidence = nil
	if err := c.Validate(); err != nil || c.ConfidenceLevel() != 0 {
		t.Errorf("confidence off: %v, %v", err, c.ConfidenceLevel())
	}
}

func TestWindowSettingsErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"confidence: 0\n", "c.yml:1: confidence: must be between 0 and 1 (exclusive), such as 0.95, or null to turn intervals off"},
		{"confidence: 1\n", "c.yml:1: confidence: must be between"},
		{"confidence: .nan\n", "c.yml:1: confidence: must be between"},
		{"windows: null\n", "c.yml:1: windows: must list at least one window"},
		{"windows: [1h, 1m, 5m, 30s, 2h]\n", "c.yml:1: windows: must list at most 4 windows"},
		{"windows: 1m\n", "c.yml:1: windows: must be a list"},
		{"window_sample_cap: 10000001\n", "c.yml:1: window_sample_cap: must be between 720 and 10000000 records"},
		{"window_sample_cap: 0\n", "c.yml:1: window_sample_cap: must be between"},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml+oneTarget), "c.yml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// A window or warmup written as null is rejected, naming the field, rather
// than replaced by the default.
func TestWindowNullsRejected(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"null window", "windows: [null]\n", "c.yml:1: windows[0]: must be a duration such as 1m, not null"},
		{"null second window", "windows: [1m, ~]\n", "c.yml:1: windows[1]: must be a duration such as 1m, not null"},
		{"null warmup", "warmup: null\n", "c.yml:1: warmup: must be a duration such as 30s or 0s, not null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml+oneTarget), "c.yml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
