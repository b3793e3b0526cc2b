package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/trace"
)

// target is a YAML target with the given extra lines under it, each
// indented by four spaces; its first extra line is line 5 of the document.
func target(lines ...string) string {
	return "targets:\n  - name: t\n    base_url: http://127.0.0.1:8000/v1\n    model: m\n    " +
		strings.Join(lines, "\n    ") + "\n"
}

func TestStrategySettingProblems(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{"max_queue with synchronous",
			target("schedule: {strategy: synchronous, max_queue: 2}"),
			"c.yml:5: targets[0].schedule.max_queue: is not used by strategy synchronous: it sends one request at a time"},
		{"max_concurrency with synchronous",
			target("schedule:", "  strategy: synchronous", "  max_concurrency: 2"),
			"c.yml:7: targets[0].schedule.max_concurrency: is not used by strategy synchronous: it sends one request at a time"},
		{"max_queue with throughput",
			target("schedule: {strategy: throughput, max_queue: 0}"),
			"c.yml:5: targets[0].schedule.max_queue: is not used by strategy throughput: each of its streams has a concurrency slot"},
		{"error_backoff with constant",
			target("schedule: {strategy: constant, error_backoff: 2s}"),
			"c.yml:5: targets[0].schedule.error_backoff: is not used by strategy constant: only synchronous, concurrent and throughput pause after an error"},
		{"negative error_backoff",
			target("schedule: {strategy: synchronous, error_backoff: -1s}"),
			"c.yml:5: targets[0].schedule.error_backoff: must be >= 0"},
		{"long error_backoff",
			target("schedule: {strategy: synchronous, error_backoff: 2h}"),
			"c.yml:5: targets[0].schedule.error_backoff: must be at most 1h0m0s"},
		{"later-turn settings with one turn",
			target("workload:", "  conversation:", "    turns: 1", "    think_time: 1s", "    history: last_turn",
				"    prompt_tokens: 5", "    output_tokens: {mean: 5}"),
			"c.yml:8: targets[0].workload.conversation.think_time: is not used with turns: 1: a conversation of one turn has no later turn\n" +
				"c.yml:9: targets[0].workload.conversation.history: is not used with turns: 1: a conversation of one turn has no later turn\n" +
				"c.yml:10: targets[0].workload.conversation.prompt_tokens: is not used with turns: 1: a conversation of one turn has no later turn\n" +
				"c.yml:11: targets[0].workload.conversation.output_tokens: is not used with turns: 1: a conversation of one turn has no later turn"},
		// 1 + 999 turns of 1000 prompt and 100 output tokens (their max) =
		// 1000 × 1100 = 1100000 > 1048576.
		{"full history beyond the token limit",
			target("workload:", "  prompt_tokens: 1000", "  output_tokens: {mean: 50, max: 100}", "  conversation: {turns: 1000}"),
			"c.yml:8: targets[0].workload.conversation.turns: with history full, the last turn's context can reach 1100000 tokens " +
				"(turns × (prompt + output tokens), at their max), more than 1048576: lower turns or the token counts, or use history last_turn or new_prompt"},
		// The first turn: 1000 + 100 tokens; 9 later turns of 200000 + 10 tokens:
		// 1100 + 9 × 200010 = 1801190.
		{"full history with larger later turns",
			target("workload:", "  prompt_tokens: 1000", "  output_tokens: 100",
				"  conversation: {turns: 10, prompt_tokens: 200000, output_tokens: 10}"),
			"c.yml:8: targets[0].workload.conversation.turns: with history full, the last turn's context can reach 1801190 tokens " +
				"(turns × (prompt + output tokens), at their max), more than 1048576: lower turns or the token counts, or use history last_turn or new_prompt"},
		{"huge seed",
			target("schedule: {strategy: poisson, seed: 9223372036854775808}"),
			"c.yml:5: targets[0].schedule.seed: is too large: must be at most 9223372036854775807"},
		{"huge workload seed",
			target("workload: {seed: 18446744073709551615}"),
			"c.yml:5: targets[0].workload.seed: is too large: must be at most 9223372036854775807"},
		{"very negative seed",
			target("workload: {seed: -9223372036854775809}"),
			"c.yml:5: targets[0].workload.seed: is too small: must be at least -9223372036854775808"},
		{"huge max_queue",
			target("schedule: {max_queue: 18446744073709551615}"),
			"c.yml:5: targets[0].schedule.max_queue: is too large: must be at most 100000"},
		{"huge streams",
			target("schedule: {strategy: concurrent, streams: 9223372036854775808}"),
			"c.yml:5: targets[0].schedule.streams: is too large: must be at most 10000"},
		{"huge fixed prompt",
			target("workload: {prompt_tokens: 9223372036854775808}"),
			"c.yml:5: targets[0].workload.prompt_tokens: is too large: must be at most 1048576"},
		{"huge think time",
			target("workload: {conversation: {turns: 2, think_time: 100000000h}}"),
			"c.yml:5: targets[0].workload.conversation.think_time: is too large (at most 24h0m0s)"},
		{"huge rampup",
			target("schedule: {rampup: 9999999999h}"),
			"c.yml:5: targets[0].schedule.rampup: is too large (at most 24h0m0s)"},
		{"huge timeout",
			target("timeout: 9999999999h"),
			"c.yml:5: targets[0].timeout: is too large (at most 2562047h47m16.854775807s)"},
		{"huge negative think time",
			target("workload: {conversation: {turns: 2, think_time: -100000000h}}"),
			"c.yml:5: targets[0].workload.conversation.think_time: must be >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "c.yml")
			if got := fmt.Sprint(err); got != tt.want {
				t.Errorf("error =\n%v\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestStrategySettingsAccepted(t *testing.T) {
	tests := []struct {
		name string
		yaml string
	}{
		{"negative seeds", target("workload: {seed: -9223372036854775808}", "schedule: {strategy: poisson, seed: -1}")},
		{"no backoff", target("schedule: {strategy: synchronous, error_backoff: 0s}")},
		{"one turn", target("workload: {conversation: {turns: 1}}")},
		// 1000 × (1000 + 48) = 1048000 ≤ 1048576.
		{"full history at the limit", target("workload: {prompt_tokens: 1000, output_tokens: 48, conversation: {turns: 1000}}")},
		{"last turn beyond the limit", target("workload: {prompt_tokens: 1000, output_tokens: 100, conversation: {turns: 1000, history: last_turn}}")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse([]byte(tt.yaml), "c.yml"); err != nil {
				t.Errorf("error %v, want none", err)
			}
		})
	}
}

func TestErrorBackoffDefaults(t *testing.T) {
	data := target("schedule: {strategy: concurrent, streams: 2}") +
		"  - {name: s, base_url: \"http://h/v1\", model: m, schedule: {strategy: synchronous, error_backoff: 0s}}\n" +
		"  - {name: u, base_url: \"http://h/v1\", model: m, schedule: {strategy: throughput, error_backoff: 250ms}}\n" +
		"  - {name: c, base_url: \"http://h/v1\", model: m}\n"
	c, err := Parse([]byte(data), "c.yml")
	if err != nil {
		t.Fatal(err)
	}
	// Closed loops default to 1s, keep an explicit 0; open loops have none.
	for i, want := range []time.Duration{time.Second, 0, 250 * time.Millisecond, 0} {
		if got := c.Targets[i].Schedule.ErrorBackoff; got != want {
			t.Errorf("target %d: error_backoff %v, want %v", i, got, want)
		}
	}
	e, err := FromEnv(map[string]string{"LLMPROBER_TARGET_URL": "http://h/v1", "LLMPROBER_MODEL": "m",
		"LLMPROBER_STRATEGY": "synchronous", "LLMPROBER_ERROR_BACKOFF": "3s"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := Resolve(e, Overrides{}); err != nil || c.Targets[0].Schedule.ErrorBackoff != 3*time.Second {
		t.Errorf("LLMPROBER_ERROR_BACKOFF=3s: %v, error %v", c, err)
	}
	e, _ = FromEnv(map[string]string{"LLMPROBER_TARGET_URL": "http://h/v1", "LLMPROBER_MODEL": "m", "LLMPROBER_ERROR_BACKOFF": "3s"})
	if _, err := Resolve(e, Overrides{}); fmt.Sprint(err) != "LLMPROBER_ERROR_BACKOFF: is not used by strategy constant: only synchronous, concurrent and throughput pause after an error" {
		t.Errorf("LLMPROBER_ERROR_BACKOFF with constant: %v", err)
	}
}

func TestTraceRateLimit(t *testing.T) {
	dir := t.TempDir()
	// 20001 rows, one every 50 µs: the last at 1 s, a pass of 1 s + 50 µs.
	var b strings.Builder
	for i := range 20001 {
		fmt.Fprintf(&b, "{\"timestamp\": %g, \"prompt_tokens\": 1, \"output_tokens\": 1}\n", float64(i)*50e-6)
	}
	dense := filepath.Join(dir, "dense.jsonl")
	if err := os.WriteFile(dense, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, scale string
		loop              bool
		want              string
	}{
		// ok.jsonl: 3 rows in a pass of 1.5 s. At scale 0.0002 that is
		// 3 / 0.0003 s = 10000 requests per second: accepted; at 0.0001,
		// 20000: rejected, and 3 / (10000 × 1.5) = 0.0002 is the least scale.
		{"looping at the limit", "testdata/traces/ok.jsonl", "0.0002", true, ""},
		{"looping too fast", "testdata/traces/ok.jsonl", "0.0001", true,
			"c.yml:9: targets[0].schedule.trace.time_scale: is too small: trace testdata/traces/ok.jsonl would be replayed at a mean 20000 requests per second " +
				"(3 timestamped rows in a pass of 1.5s × 0.0001), more than 10000; use at least 0.0002"},
		// Not looping, a burst of 3 rows counts as if spread over 1 s.
		{"short burst", "testdata/traces/ok.jsonl", "0.000001", false, ""},
		// 20001 / 1.00005 s ≈ 20000 per second at scale 1; the least scale is
		// 20001 / (10000 × 1.00005) = 2.0000 (to 5 digits).
		{"dense trace", dense, "1", false,
			"c.yml:9: targets[0].schedule.trace.time_scale: is too small: trace " + dense + " would be replayed at a mean 20000 requests per second " +
				"(20001 timestamped rows in a pass of 1.00005s × 1), more than 10000; use at least 2"},
		{"dense trace slowed", dense, "2.01", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := target("schedule:", "  strategy: trace", "  trace:", "    file: "+tt.file,
				"    time_scale: "+tt.scale, fmt.Sprintf("    loop: %v", tt.loop))
			c, err := Parse([]byte(yaml), "c.yml")
			if err != nil {
				t.Fatal(err)
			}
			err = c.Check()
			if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
				t.Errorf("Check() =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}

func TestTraceFileRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o700); err != nil {
		t.Fatal(err)
	}
	row := `{"timestamp": 0, "prompt_tokens": 1, "output_tokens": 1}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "traces", "a.jsonl"), []byte(row), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "llmprober.yml")
	abs := filepath.Join(dir, "traces", "a.jsonl")
	tests := []struct{ file, want string }{
		{"traces/a.jsonl", abs},
		{abs, abs},
	}
	for _, tt := range tests {
		data := target("schedule: {strategy: trace, trace: {file: " + tt.file + "}}")
		if err := os.WriteFile(cfg, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		// The working directory is the package's: the relative name is
		// found only next to the configuration file.
		c, err := Load(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Targets[0].Schedule.Trace.File; got != tt.want {
			t.Errorf("file %s: resolved to %s, want %s", tt.file, got, tt.want)
		}
		if err := c.Check(); err != nil {
			t.Errorf("file %s: Check: %v", tt.file, err)
		}
	}
}

func TestTraceTokenLimitMatchesConfig(t *testing.T) {
	if trace.MaxTokens != LimitTokens {
		t.Errorf("trace token limit %d, configuration limit %d", trace.MaxTokens, LimitTokens)
	}
}
