package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// examplesDir holds the copy-paste configurations of docs/examples.
const examplesDir = "../../docs/examples"

// exampleKeyFile is where hosted-api-key-file.yml expects its API key; the
// test writes a key elsewhere and checks a copy of the example pointing at
// it.
const exampleKeyFile = "/etc/llmprober/api-key"

// TestExamples runs llmprober check on every configuration of
// docs/examples, as a reader would, and expects it valid with the targets
// the file names.
func TestExamples(t *testing.T) {
	want := map[string]string{
		"hosted-api-key-file.yml": "configuration is valid: 1 target(s): hosted\n",
		"several-targets.yml":     "configuration is valid: 3 target(s): vllm-chat, vllm-completions, sglang-whole\n",
		"sweep-benchmark.yml":     "configuration is valid: 1 target(s): vllm\n",
		"vllm-sidecar-slo.yml":    "configuration is valid: 1 target(s): vllm\n",
	}
	files, err := filepath.Glob(filepath.Join(examplesDir, "*.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(want) {
		t.Errorf("docs/examples has %d configurations %v, the test knows %d: add the new one here", len(files), files, len(want))
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			err := Run(context.Background(), []string{"check", "--config", exampleWithKey(t, path)}, &stdout, &stderr, nil)
			if err != nil {
				t.Fatalf("check %s: exit %d: %v\n%s%s", name, exitCode(err), err, stdout.String(), stderr.String())
			}
			if first, _, _ := strings.Cut(stdout.String(), "series:"); first != want[name] {
				t.Errorf("check %s printed %q, want %q", name, first, want[name])
			}
			if stderr.Len() > 0 {
				t.Errorf("check %s warned:\n%s", name, stderr.String())
			}
		})
	}
}

// exampleWithKey returns path, or, when the example reads exampleKeyFile, a
// copy of it in a temporary directory that reads a key written there.
func exampleWithKey(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "api_key_file: "+exampleKeyFile+"\n") {
		return path
	}
	key := writeFile(t, "api-key", "sk-example-0123456789\n")
	return writeFile(t, filepath.Base(path), strings.ReplaceAll(string(b), exampleKeyFile, key))
}

// TestExampleSweepBenchmark validates sweep-benchmark.yml with the command
// line its comment gives, as bench --config does before any request:
// flags, configuration, target and profile.
func TestExampleSweepBenchmark(t *testing.T) {
	path := filepath.Join(examplesDir, "sweep-benchmark.yml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, line := range strings.Split(string(b), "\n") {
		if _, cmd, ok := strings.Cut(line, "#   llmprober bench "); ok {
			args = strings.Fields(cmd)
		}
	}
	if len(args) < 2 || args[0] != "--config" || args[1] != "sweep-benchmark.yml" {
		t.Fatalf("no command line \"llmprober bench --config sweep-benchmark.yml ...\" in the comment of %s", path)
	}
	args[1] = path
	var stderr strings.Builder
	f, err := parseBenchConfigFlags(args, &stderr)
	if err != nil {
		t.Fatalf("bench %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	plan, err := newBenchPlan(f)
	if err != nil {
		t.Fatalf("bench %s: %v", strings.Join(args, " "), err)
	}
	if f.profile != profileSweep || f.sweepRates != 6 || plan.target.Name != "vllm" {
		t.Errorf("profile %s, sweep rates %d, target %s; want sweep, 6, vllm", f.profile, f.sweepRates, plan.target.Name)
	}
	if plan.target.Schedule.MaxConcurrency != 32 || len(plan.objectives) != 1 || plan.warmup.String() != "10s" {
		t.Errorf("max_concurrency %d, %d objective sets, warmup %s; want 32, 1, 10s",
			plan.target.Schedule.MaxConcurrency, len(plan.objectives), plan.warmup)
	}
}

// TestReadmeMinimalConfig runs llmprober check on the minimal configuration
// of README's "Probing a real server", with its objective set, as a reader
// who copies it would.
func TestReadmeMinimalConfig(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "A minimal `llmprober.yaml`:\n\n```yaml\n")
	yml, _, closed := strings.Cut(rest, "```")
	if !ok || !closed || !strings.Contains(yml, "objectives:") {
		t.Fatalf("README has no minimal configuration with objectives (found %q)", yml)
	}
	var stdout, stderr strings.Builder
	if err := Run(context.Background(), []string{"check", "--config", writeFile(t, "llmprober.yaml", yml)}, &stdout, &stderr, nil); err != nil {
		t.Fatalf("check: exit %d: %v\n%s", exitCode(err), err, stderr.String())
	}
	if first, _, _ := strings.Cut(stdout.String(), "series:"); first != "configuration is valid: 1 target(s): vllm\n" {
		t.Errorf("check printed %q", first)
	}
}
