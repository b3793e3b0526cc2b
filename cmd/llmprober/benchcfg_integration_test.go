package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestIntegrationBenchLlamaServer runs a brief sweep against a real
// llama.cpp server (synchronous, throughput and 2 constant rates, 10
// streamed chat requests each, EOS ignored) and checks every benchmark's
// token counts against the server's own usage reports: every successful
// record's output tokens come from usage and are the forced length, its
// prompt tokens come from usage too, and the window's output token total
// is their sum.
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
    schedule: {rate: 2, max_concurrency: 2}
    objectives:
      - {name: default, latency: 20s, attainment: 0.5, period: 7d}
`, base, forcedOutput))
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--profile", "sweep", "--sweep-rates", "2",
		"--max-requests", "10", "--output", out)
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
	if len(doc.Benchmarks) != 4 {
		t.Fatalf("%d benchmarks, want 4\n%s", len(doc.Benchmarks), stdout)
	}
	for i, bm := range doc.Benchmarks {
		w := bm.Window
		var sum int64
		for _, r := range w.Records.Requests {
			if r.Outcome != "successful" {
				continue
			}
			if r.OutputTokensFrom != "usage" || r.OutputTokens == nil || *r.OutputTokens != forcedOutput ||
				r.PromptTokensFrom != "usage" || r.PromptTokens == nil || *r.PromptTokens <= 0 {
				t.Errorf("benchmark %d: record %+v; want %d output tokens and a prompt length, both from usage", i, r, forcedOutput)
				continue
			}
			sum += *r.OutputTokens
		}
		if w.Requests["successful"] < 9 || w.OutputTokens["successful"] != float64(sum) || sum != forcedOutput*w.Requests["successful"] {
			t.Errorf("benchmark %d: %d successful of 10, output tokens %v, records' usage sum %d; want at least 9, all %d × successful",
				i, w.Requests["successful"], w.OutputTokens["successful"], sum, forcedOutput)
		}
	}
	t.Logf("llama-server sweep:\n%s", stdout)
}
