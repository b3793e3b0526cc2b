package main

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// benchURLFlags and benchConfigFlagNames are the flags of the two forms of
// bench, which its help lists whichever form was asked about.
var (
	benchURLFlags = []string{"api", "cpu-profile", "duration", "ignore-eos", "json", "max-concurrency", "max-queue", "model",
		"output-tokens", "prompt-tokens", "rate", "stream", "target-url", "timeout"}
	benchConfigFlagNames = []string{"confidence", "config", "cooldown", "csv", "gate", "gate-inconclusive", "goodput-steps", "html",
		"max-duration", "max-error-rate", "max-errors", "max-requests", "objective", "output", "profile", "quiet", "sweep-rates",
		"target", "warmup"}
)

// flagLine is a flag's line in a flag set's usage: "  -name type".
var flagLine = regexp.MustCompile(`(?m)^  -(\S+)`)

// helpText runs args and returns its exit code and everything it printed.
func helpText(t *testing.T, args ...string) (code int, stdout, all string) {
	t.Helper()
	var out, errOut strings.Builder
	err := Run(context.Background(), args, &out, &errOut, nil)
	return exitCode(err), out.String(), out.String() + errOut.String()
}

// listedFlags returns the flags a usage text lists, in its order.
func listedFlags(text string) []string {
	var names []string
	for _, m := range flagLine.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}

// TestBenchHelp: bench's help lists the flags of both forms, the
// configured benchmark's (--config, --profile, ...) too, whether asked
// with or without --config.
func TestBenchHelp(t *testing.T) {
	want := append(slices.Clone(benchURLFlags), benchConfigFlagNames...)
	for _, args := range [][]string{
		{"bench", "--help"},
		{"bench", "-h"},
		{"bench", "--config", "x.yml", "--help"},
		{"help", "bench"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, text := helpText(t, args...)
			if code != 0 {
				t.Fatalf("exit code %d, want 0:\n%s", code, text)
			}
			if got := listedFlags(text); !slices.Equal(got, want) {
				t.Errorf("flags listed:\n%v\nwant:\n%v", got, want)
			}
			for _, s := range []string{"llmprober bench --target-url URL", "llmprober bench --config FILE",
				"Flags of a URL benchmark:", "Flags of a configured benchmark (--config):"} {
				if !strings.Contains(text, s) {
					t.Errorf("help lacks %q:\n%s", s, text)
				}
			}
		})
	}
}

// TestHelpCommand: "llmprober help COMMAND" prints COMMAND's own help, on
// stdout, the same as "llmprober COMMAND --help", not the global usage.
func TestHelpCommand(t *testing.T) {
	tests := []struct {
		command string
		flags   []string
	}{
		{"demo", []string{"listen-address", "log-level"}},
		{"run", []string{"config", "config.auto-reload-interval", "listen-address", "log-level", "shard", "shards",
			"web-config-file", "web.allowed-hosts", "web.enable-lifecycle"}},
		{"check", []string{"config", "shard", "shards"}},
		{"sim", []string{"fault-rate", "itl", "listen-address", "output-tokens", "seed", "ttft"}},
		{"bench", append(slices.Clone(benchURLFlags), benchConfigFlagNames...)},
		{"compare", []string{"fail-on-regression"}},
		{"rules", []string{"config", "default", "format", "job", "max-dispatch-delay", "max-report-age", "min-coverage", "min-requests"}},
		{"version", nil},
	}
	if len(tests) != len(commands) {
		t.Errorf("the test covers %d commands, help knows %d: %v", len(tests), len(commands), commands)
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			code, stdout, text := helpText(t, "help", tc.command)
			if code != 0 {
				t.Fatalf("exit code %d, want 0:\n%s", code, text)
			}
			if stdout != text {
				t.Errorf("help %s wrote to stderr:\n%s", tc.command, strings.TrimPrefix(text, stdout))
			}
			if strings.Contains(text, "Usage:\n  llmprober demo") {
				t.Errorf("help %s printed the global usage:\n%s", tc.command, text)
			}
			if got := listedFlags(text); !slices.Equal(got, tc.flags) {
				t.Errorf("flags listed: %v, want %v", got, tc.flags)
			}
			_, _, direct := helpText(t, tc.command, "--help")
			if direct != text {
				t.Errorf("help %s printed:\n%s\n%s --help printed:\n%s", tc.command, text, tc.command, direct)
			}
		})
	}
	if _, stdout, _ := helpText(t, "help"); stdout != usage {
		t.Errorf("help without a command printed:\n%s\nwant the global usage", stdout)
	}
	for _, args := range [][]string{{"help", "frobnicate"}, {"help", "run", "check"}} {
		if code, _, text := helpText(t, args...); code != 2 || !strings.Contains(text, "help takes one of demo, run, check") {
			t.Errorf("%v: exit code %d, want 2 naming the commands:\n%s", args, code, text)
		}
	}
}
