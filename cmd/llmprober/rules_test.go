package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestRulesCommand(t *testing.T) {
	withObjectives := writeFile(t, "objectives.yml", `targets:
  - name: a
    base_url: http://127.0.0.1:1/v1
    model: m
    objectives:
      - {name: fast, ttft: 500ms, attainment: 0.995, period: 7d}
  - name: b
    base_url: http://127.0.0.1:2/v1
    model: m
`)
	without := writeFile(t, "plain.yml", "targets:\n  - {name: a, base_url: \"http://127.0.0.1:1/v1\", model: m}\n")
	committed, err := os.ReadFile("../../deploy/llmprober-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		want    string // a line the output holds
		wantErr error
	}{
		// 0.02 × 7d/1h = 3.36, × (1 − 0.995) = 0.0168.
		{"from the configuration", []string{"--config", withObjectives}, `rate1h{objective="fast"} > 0.0168`, nil},
		{"operator format", []string{"--config", withObjectives, "--format", "operator"}, "kind: PrometheusRule", nil},
		{"default objective set", []string{"--default"}, string(committed), nil},
		{"no objectives", []string{"--config", without}, "", errNoObjectives},
		{"bad format", []string{"--default", "--format", "json"}, "", errUsage},
		{"dispatch delay at a boundary", []string{"--default", "--max-dispatch-delay", "250us"}, `le=~"0\\.00025"`, nil},
		{"dispatch delay between boundaries", []string{"--default", "--max-dispatch-delay", "3s"}, "", errUsage},
		{"negative minimum", []string{"--default", "--min-requests", "-1"}, "", errUsage},
		{"no minimum", []string{"--default", "--min-requests", "0"}, "rate5m{objective=\"default\"} > 0.144\n              and on (target) llmprober:target_coverage:ratio1h >= 0.5\n            )", nil},
		{"no coverage guard", []string{"--default", "--min-coverage", "0"}, "increase5m{objective=\"default\"} >= 10\n            )", nil},
		{"heartbeat age", []string{"--default", "--max-report-age", "90s"}, "time() - llmprober_collection_timestamp_seconds <= 90)", nil},
		{"heartbeat age too short", []string{"--default", "--max-report-age", "10s"}, "", errUsage},
		{"heartbeat age not whole seconds", []string{"--default", "--max-report-age", "90.5s"}, "", errUsage},
		{"coverage above 1", []string{"--default", "--min-coverage", "1.5"}, "", errUsage},
		{"another job", []string{"--default", "--job", "probes-eu"}, `up{job="probes-eu"} == 0`, nil},
		{"no job", []string{"--default", "--job", ""}, "or (\n            group by (job) (llmprober:replica_reported:group7h)", nil},
		{"config and default", []string{"--default", "--config", withObjectives}, "", errUsage},
		{"zero dispatch delay", []string{"--default", "--max-dispatch-delay", "0s"}, "", errUsage},
		{"negative dispatch delay", []string{"--default", "--max-dispatch-delay", "-1s"}, "", errUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), append([]string{"rules"}, tt.args...), &stdout, &stderr, map[string]string{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Run = %v, want %v (stderr %s)", err, tt.wantErr, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, stdout.String())
			}
		})
	}
}
