package config

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestUnknownVariables: every LLMPROBER_* variable that llmprober does not
// know is a problem naming the nearest known one, with a target from the
// environment or from a file, except the variables that hold API keys
// (auth.api_key_env) and those the test suite reads.
func TestUnknownVariables(t *testing.T) {
	t.Setenv("LLMPROBER_VLLM_KEY", "k") // Check reads the key of the file's target
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yml")
	yml := "targets:\n  - {name: a, base_url: 'http://127.0.0.1:8000/v1', model: m, auth: {api_key_env: LLMPROBER_VLLM_KEY}}\n"
	if err := os.WriteFile(file, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	target := map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m"}
	tests := []struct {
		name    string
		base    map[string]string
		environ map[string]string
		want    string // "" for no error
	}{
		{"the issue's case: a missing S", target, map[string]string{"LLMPROBER_OUTPUT_TOKEN": "8"},
			"LLMPROBER_OUTPUT_TOKEN: unknown variable (did you mean LLMPROBER_OUTPUT_TOKENS?)"},
		{"a global setting beside a file", map[string]string{"LLMPROBER_CONFIG": file}, map[string]string{"LLMPROBER_LISTENADDRESS": ":9477"},
			"LLMPROBER_LISTENADDRESS: unknown variable (did you mean LLMPROBER_LISTEN_ADDRESS?)"},
		{"several, in order", target, map[string]string{"LLMPROBER_RATES": "1", "LLMPROBER_MODELL": "x"},
			"LLMPROBER_MODELL: unknown variable (did you mean LLMPROBER_MODEL?)\nLLMPROBER_RATES: unknown variable (did you mean LLMPROBER_RATE?)"},
		{"far from every name: still the nearest", target, map[string]string{"LLMPROBER_X": "1"},
			"LLMPROBER_X: unknown variable (did you mean LLMPROBER_API?)"},
		{"with no target at all", nil, map[string]string{"LLMPROBER_TARGET_UR": "http://h/v1"},
			"LLMPROBER_TARGET_UR: unknown variable (did you mean LLMPROBER_TARGET_URL?)\nno targets: set --config or LLMPROBER_TARGET_URL"},
		{"beside a bad value", target, map[string]string{"LLMPROBER_TIMEOUTS": "1s", "LLMPROBER_RATE": "fast"},
			"LLMPROBER_TIMEOUTS: unknown variable (did you mean LLMPROBER_TIMEOUT?)\nLLMPROBER_RATE: must be a number (got \"fast\")"},
		{"a key variable named by the file", map[string]string{"LLMPROBER_CONFIG": file}, map[string]string{"LLMPROBER_VLLM_KEY": "k"}, ""},
		{"a key variable named by LLMPROBER_API_KEY_ENV", target,
			map[string]string{"LLMPROBER_API_KEY_ENV": "LLMPROBER_OTHER_KEY", "LLMPROBER_OTHER_KEY": "k"}, ""},
		{"a key variable named by nothing", target, map[string]string{"LLMPROBER_OTHER_KEY": "k"},
			"LLMPROBER_OTHER_KEY: unknown variable (did you mean LLMPROBER_API_KEY?)"},
		{"the test suite's variables", target, map[string]string{"LLMPROBER_LLAMA_URL": "http://127.0.0.1:1/v1", "LLMPROBER_REQUIRE_INTEGRATION": "1"}, ""},
		{"other prefixes are not llmprober's", target, map[string]string{"LLMPROBERX": "1", "OTHER_LLMPROBER_X": "1", "llmprober_rate": "1"}, ""},
		{"the tester's case: lower case", target, map[string]string{"LLMPROBER_model": "m"},
			"LLMPROBER_model: unknown variable (did you mean LLMPROBER_MODEL? variable names are case-sensitive)"},
		{"mixed case", target, map[string]string{"LLMPROBER_Rate": "1"},
			"LLMPROBER_Rate: unknown variable (did you mean LLMPROBER_RATE? variable names are case-sensitive)"},
		{"lower case and misspelt", target, map[string]string{"LLMPROBER_outpt_tokens": "8"},
			"LLMPROBER_outpt_tokens: unknown variable (did you mean LLMPROBER_OUTPUT_TOKENS?)"},
		{"a threshold in lower case", target, map[string]string{"LLMPROBER_slo_ttft": "1s"},
			"LLMPROBER_slo_ttft: unknown variable (did you mean LLMPROBER_SLO_TTFT? variable names are case-sensitive)"},
		{"a misspelt threshold in lower case", target, map[string]string{"LLMPROBER_slo_tfft": "1s"},
			"LLMPROBER_slo_tfft: unknown variable; the objective set's variables are LLMPROBER_SLO_ATTAINMENT, LLMPROBER_SLO_ITL, " +
				"LLMPROBER_SLO_LATENCY, LLMPROBER_SLO_NAME, LLMPROBER_SLO_PERIOD, LLMPROBER_SLO_SCHEDULED_LATENCY, " +
				"LLMPROBER_SLO_TPOT, LLMPROBER_SLO_TTFOT, LLMPROBER_SLO_TTFT"},
		{"an unknown variable set empty", target, map[string]string{"LLMPROBER_TAGS": ""},
			"LLMPROBER_TAGS: unknown variable (did you mean LLMPROBER_TAG?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			environ := maps.Clone(tt.base)
			if environ == nil {
				environ = map[string]string{}
			}
			maps.Copy(environ, tt.environ)
			e, err := FromEnv(environ)
			if err == nil {
				_, err = Resolve(e, Overrides{})
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestKnownVarsFromTheTags: the known variables are exactly those of the
// env tags, of Env, EnvTarget, EnvObjective, CommandEnv and TestEnv, and
// APIKeyVar.
func TestKnownVarsFromTheTags(t *testing.T) {
	var want []string
	for _, typ := range []reflect.Type{reflect.TypeFor[Env](), reflect.TypeFor[EnvTarget](), reflect.TypeFor[EnvObjective](),
		reflect.TypeFor[CommandEnv](), reflect.TypeFor[TestEnv]()} {
		for _, name := range envVars(typ) {
			want = append(want, name)
		}
	}
	want = append(want, APIKeyVar)
	slices.Sort(want)
	want = slices.Compact(want)
	if got := KnownVars(); !slices.Equal(got, want) {
		t.Errorf("KnownVars = %v\nwant %v", got, want)
	}
	for _, v := range want {
		if !strings.HasPrefix(v, envVarPrefix) {
			t.Errorf("%s does not begin with %s", v, envVarPrefix)
		}
	}
}

// TestReadmeListsEveryVariable: the README's table of variables names
// every variable llmprober reads, and the Tests section those of TestEnv.
func TestReadmeListsEveryVariable(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range KnownVars() {
		if !strings.Contains(string(readme), "`"+v+"`") && !strings.Contains(string(readme), "`"+v+"=") {
			t.Errorf("README does not list %s", v)
		}
	}
}
