package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestIntegrationBenchLlamaServer benchmarks a real llama.cpp server
// briefly (20 streamed chat requests, 2 at a time, EOS ignored) and checks
// the report's token counts against the server's own usage reports: every
// successful record's output tokens come from usage and are the forced
// length, its prompt tokens come from usage too, and the window's output
// token total is their sum.
func TestIntegrationBenchLlamaServer(t *testing.T) {
	base := llamaServer(t)
	cfg := writeFile(t, "llama.yml", fmt.Sprintf(`targets:
  - name: llama-bench
    base_url: %s/v1
    model: random-llama
    stream: true
    timeout: 20s
    readiness: {path: /health}
    workload: {prompt_tokens: 32, output_tokens: %d, ignore_eos: true}
    schedule: {strategy: concurrent, streams: 2, max_concurrency: 2}
    objectives:
      - {name: default, latency: 20s, attainment: 0.5, period: 7d}
`, base, forcedOutput))
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--max-requests", "20", "--output", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Benchmarks []struct {
			Window struct {
				Requests     map[string]int64   `json:"requests"`
				OutputTokens map[string]float64 `json:"output_tokens"`
				Records      struct {
					Requests []struct {
						Outcome          string `json:"outcome"`
						PromptTokens     *int64 `json:"prompt_tokens"`
						PromptTokensFrom string `json:"prompt_tokens_from"`
						OutputTokens     *int64 `json:"output_tokens"`
						OutputTokensFrom string `json:"output_tokens_from"`
					} `json:"requests"`
				} `json:"records"`
			} `json:"window"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	w := doc.Benchmarks[0].Window
	var sum int64
	for _, r := range w.Records.Requests {
		if r.Outcome != "successful" {
			continue
		}
		if r.OutputTokensFrom != "usage" || r.OutputTokens == nil || *r.OutputTokens != forcedOutput ||
			r.PromptTokensFrom != "usage" || r.PromptTokens == nil || *r.PromptTokens <= 0 {
			t.Errorf("record %+v; want %d output tokens and a prompt length, both from usage", r, forcedOutput)
			continue
		}
		sum += *r.OutputTokens
	}
	if w.Requests["successful"] < 18 || w.OutputTokens["successful"] != float64(sum) || sum != forcedOutput*w.Requests["successful"] {
		t.Errorf("%d successful of 20, output tokens %v, records' usage sum %d; want at least 18, all equal to %d × successful",
			w.Requests["successful"], w.OutputTokens["successful"], sum, forcedOutput)
	}
	t.Logf("llama-server bench:\n%s", stdout)
}
