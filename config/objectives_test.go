package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoadObjectives(t *testing.T) {
	c, err := Load("testdata/objectives.yml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	got := c.Targets[0].Objectives
	want := []Objective{
		// Unset attainment and period take the defaults 0.99 and 30d.
		{Name: "default", TTFT: ptr(500 * time.Millisecond), ITL: ptr(50 * time.Millisecond),
			Latency: ptr(10 * time.Second), Attainment: ptr(0.99), Period: Period(30 * 24 * time.Hour)},
		// 4w = 28 × 24h.
		{Name: "strict", TTFOT: ptr(200 * time.Millisecond), TPOT: ptr(20 * time.Millisecond),
			ScheduledLatency: ptr(2 * time.Second), Attainment: ptr(0.999), Period: Period(28 * 24 * time.Hour)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("objectives = %+v, want %+v", got, want)
	}
	th := got[0].Thresholds()
	wantTh := map[string]time.Duration{"ttft": 500 * time.Millisecond, "itl": 50 * time.Millisecond, "latency": 10 * time.Second}
	if !reflect.DeepEqual(th, wantTh) {
		t.Errorf("Thresholds = %v, want %v", th, wantTh)
	}
}

func TestParsePeriod(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"30d", 30 * day, false},
		{"4w", 28 * day, false},
		{"720h", 720 * time.Hour, false},
		{"30x", 0, true},
		{"d", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePeriod(tt.in)
			if (err != nil) != tt.wantErr || time.Duration(got) != tt.want {
				t.Errorf("ParsePeriod(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
	if s := Period(30 * day).String(); s != "30d" {
		t.Errorf("String = %q, want 30d", s)
	}
}

// FuzzParsePeriod checks that a period either fails or is a whole number of
// days or weeks, or a Go duration, and never panics.
func FuzzParsePeriod(f *testing.F) {
	for _, s := range []string{"30d", "4w", "720h", "99999w", "1.5d", "-3d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePeriod(s)
		if err != nil {
			return
		}
		if d, derr := time.ParseDuration(s); derr == nil && time.Duration(p) != d {
			t.Errorf("ParsePeriod(%q) = %v, time.ParseDuration = %v", s, p, d)
		}
	})
}

// A zero period is an error, not the default; a null objective set, period
// or attainment is an error naming the field.
func TestObjectiveNullsAndZeroPeriod(t *testing.T) {
	const head = "targets:\n  - name: a\n    base_url: http://127.0.0.1:1/v1\n    model: m\n    objectives:\n"
	tests := []struct{ name, yaml, want string }{
		{"zero period", "      - {name: x, ttft: 1s, period: 0d}\n", "targets[0].objectives[0].period: must be between 3d and 366d"},
		{"null period", "      - {name: x, ttft: 1s, period: null}\n", `targets[0].objectives[0].period: must be a period such as "30d", not null`},
		{"null attainment", "      - {name: x, ttft: 1s, attainment: null}\n", "targets[0].objectives[0].attainment: must be a number such as 0.99, not null"},
		{"null objective set", "      - null\n", "targets[0].objectives[0]: must be an objective set, not null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(head+tt.yaml), "c.yml")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
