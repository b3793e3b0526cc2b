package config

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestFromEnv(t *testing.T) {
	environ := map[string]string{
		"LLMPROBER_CONFIG":                   "/etc/llmprober.yml",
		"LLMPROBER_LISTEN_ADDRESS":           ":9000",
		"LLMPROBER_LOG_LEVEL":                "warn",
		"LLMPROBER_TARGET_URL":               "http://127.0.0.1:8000/v1",
		"LLMPROBER_MODEL":                    "m",
		"LLMPROBER_API":                      "completions",
		"LLMPROBER_STREAM":                   "false",
		"LLMPROBER_TIMEOUT":                  "45s",
		"LLMPROBER_RATE":                     "1.5",
		"LLMPROBER_MAX_CONCURRENCY":          "3",
		"LLMPROBER_MAX_QUEUE":                "0",
		"LLMPROBER_PROMPT_TOKENS":            "256",
		"LLMPROBER_OUTPUT_TOKENS":            "32",
		"LLMPROBER_IGNORE_EOS":               "true",
		"LLMPROBER_TAG":                      "canary",
		"LLMPROBER_API_KEY_FILE":             "/run/key",
		"LLMPROBER_READINESS_PATH":           "/health",
		"LLMPROBER_TLS_CA_FILE":              "/etc/ca.pem",
		"LLMPROBER_TLS_INSECURE_SKIP_VERIFY": "true",
		"LLMPROBER_API_KEY":                  "sk-not-kept",
		"LLMPROBER_TARGET_NAME":              "",
		"UNRELATED":                          "x",
	}
	got, err := FromEnv(environ)
	if err != nil {
		t.Fatalf("FromEnv: %v", err)
	}
	want := Env{
		ConfigPath:    "/etc/llmprober.yml",
		ListenAddress: ":9000",
		LogLevel:      "warn",
		Target: EnvTarget{
			URL: "http://127.0.0.1:8000/v1", Name: "default", Model: "m", API: "completions",
			Timeout: 45 * time.Second, Rate: 1.5, MaxConcurrency: 3, PromptTokens: 256, OutputTokens: 32,
			IgnoreEOS: true, Tag: "canary", APIKeyFile: "/run/key", ReadinessPath: "/health",
			TLSCAFile: "/etc/ca.pem", TLSInsecureSkipVerify: true,
		},
		// Sorted; the empty LLMPROBER_TARGET_NAME does not count.
		TargetVars: []string{
			"LLMPROBER_API", "LLMPROBER_API_KEY_FILE", "LLMPROBER_IGNORE_EOS", "LLMPROBER_MAX_CONCURRENCY",
			"LLMPROBER_MAX_QUEUE", "LLMPROBER_MODEL", "LLMPROBER_OUTPUT_TOKENS", "LLMPROBER_PROMPT_TOKENS",
			"LLMPROBER_RATE", "LLMPROBER_READINESS_PATH", "LLMPROBER_STREAM", "LLMPROBER_TAG",
			"LLMPROBER_TARGET_URL", "LLMPROBER_TIMEOUT", "LLMPROBER_TLS_CA_FILE", "LLMPROBER_TLS_INSECURE_SKIP_VERIFY",
		},
		APIKeySet: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FromEnv =\n%+v\nwant\n%+v", got, want)
	}
}

func TestFromEnvParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		value map[string]string
		want  string
	}{
		{"rate", map[string]string{"LLMPROBER_RATE": "fast"}, `LLMPROBER_RATE: must be a number (got "fast")`},
		{"stream", map[string]string{"LLMPROBER_STREAM": "maybe"}, `LLMPROBER_STREAM: must be true or false (got "maybe")`},
		{"concurrency", map[string]string{"LLMPROBER_MAX_CONCURRENCY": "2.5"}, `LLMPROBER_MAX_CONCURRENCY: must be an integer (got "2.5")`},
		{"queue out of range", map[string]string{"LLMPROBER_MAX_QUEUE": "99999999999"}, `LLMPROBER_MAX_QUEUE: is out of range (got "99999999999")`},
		{"bare duration", map[string]string{"LLMPROBER_TIMEOUT": "30"},
			`LLMPROBER_TIMEOUT: must be a duration with a unit, such as "30s" or "1m30s" (got "30")`},
		{"duration with an unknown unit", map[string]string{"LLMPROBER_TIMEOUT": "5x"},
			`LLMPROBER_TIMEOUT: must be a duration with a unit, such as "30s" or "1m30s" (got "5x")`},
		// A key pasted into the wrong variable is not printed back, by any
		// of the parsers' messages.
		{"key as a number", map[string]string{"LLMPROBER_RATE": "sk-abcdefghij0123456789klmnopqrstuv"},
			`LLMPROBER_RATE: must be a number (35 characters, not shown)`},
		{"key as an integer", map[string]string{"LLMPROBER_MAX_QUEUE": "sk-abcdefghij0123456789klmnopqrstuv"},
			`LLMPROBER_MAX_QUEUE: must be an integer (35 characters, not shown)`},
		{"key as a boolean", map[string]string{"LLMPROBER_STREAM": "sk-abcdefghij0123456789klmnopqrstuv"},
			`LLMPROBER_STREAM: must be true or false (35 characters, not shown)`},
		{"key as a duration", map[string]string{"LLMPROBER_TIMEOUT": "sk-abcdefghij0123456789klmnopqrstuv"},
			`LLMPROBER_TIMEOUT: must be a duration with a unit, such as "30s" or "1m30s" (35 characters, not shown)`},
		{"two at once", map[string]string{"LLMPROBER_RATE": "x", "LLMPROBER_PROMPT_TOKENS": "y"},
			"LLMPROBER_RATE: must be a number (got \"x\")\nLLMPROBER_PROMPT_TOKENS: must be an integer (got \"y\")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A valid target otherwise, so that only the parse errors show.
			environ := map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m"}
			maps.Copy(environ, tt.value)
			_, err := FromEnv(environ)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want\n%s", err, tt.want)
			}
		})
	}
}

func TestResolveEnvOnly(t *testing.T) {
	e, err := FromEnv(map[string]string{
		"LLMPROBER_TARGET_URL":    "http://127.0.0.1:8000/v1",
		"LLMPROBER_MODEL":         "m",
		"LLMPROBER_STREAM":        "false",
		"LLMPROBER_MAX_QUEUE":     "0",
		"LLMPROBER_PROMPT_TOKENS": "300",
		"LLMPROBER_API_KEY":       "sk-not-kept",
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(e, Overrides{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	want := Config{
		ListenAddress: "127.0.0.1:9477",
		LogLevel:      "info",
		Targets: []Target{{
			Name: "default", BaseURL: "http://127.0.0.1:8000/v1", Model: "m", Backend: BackendHTTP, API: "chat",
			Stream: ptr(false), Provider: "openai", Timeout: time.Minute,
			// LLMPROBER_API_KEY is set and no other key source is: it is used by name.
			Auth:      Auth{APIKeyEnv: "LLMPROBER_API_KEY", Header: "Authorization"},
			Readiness: Readiness{Path: "models", Timeout: 5 * time.Second, Interval: 2 * time.Second, StartupTimeout: 10 * time.Minute},
			Workload: Workload{
				PromptTokens:    Fixed(300),
				OutputTokens:    Fixed(64),
				MaxTokensFields: []string{"max_tokens", "max_completion_tokens"},
			},
			// An explicit LLMPROBER_MAX_QUEUE=0 stays 0.
			Schedule: Schedule{Strategy: "constant", Rate: 0.2, MaxConcurrency: 4, MaxQueue: ptr(0)},
		}},
		Windows: DefaultWindows(), Confidence: ptr(0.95), WindowSampleCap: 100000,
		WindowGauges: DefaultWindowGauges(), SeriesLimit: DefaultSeriesLimit,
	}
	if got := withoutSource(c); !reflect.DeepEqual(got, want) {
		t.Errorf("Resolve =\n%+v\nwant\n%+v", got, want)
	}
}

func TestResolveEnvErrorsNameVariables(t *testing.T) {
	e, err := FromEnv(map[string]string{
		"LLMPROBER_TARGET_NAME":     "bad name",
		"LLMPROBER_TARGET_URL":      "ftp://h/v1",
		"LLMPROBER_RATE":            "0",
		"LLMPROBER_MAX_CONCURRENCY": "0",
		"LLMPROBER_PROMPT_TOKENS":   "0",
		"LLMPROBER_TIMEOUT":         "0s",
		"LLMPROBER_LOG_LEVEL":       "loud",
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(e, Overrides{})
	// Explicit zeros are validated, not replaced by defaults; LLMPROBER_MODEL
	// is named although it is unset.
	want := strings.Join([]string{
		`LLMPROBER_LOG_LEVEL: unknown log level "loud" (supported: debug, info, warn, error)`,
		`LLMPROBER_TARGET_NAME: must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.', '-'`,
		`LLMPROBER_TARGET_URL: scheme must be http or https`,
		`LLMPROBER_MODEL: required`,
		`LLMPROBER_TIMEOUT: must be > 0`,
		`LLMPROBER_PROMPT_TOKENS: must be a positive number of tokens`,
		`LLMPROBER_RATE: must be > 0`,
		`LLMPROBER_MAX_CONCURRENCY: must be >= 1`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("error =\n%v\nwant\n%s", err, want)
	}
}

func TestFromEnvListsEveryBadVariable(t *testing.T) {
	// A value that does not parse does not hide the problems with the
	// others; the one that did not parse gets no second problem
	// (LLMPROBER_MAX_CONCURRENCY is not also "must be >= 1").
	missing := filepath.Join(t.TempDir(), "absent")
	tests := []struct {
		name    string
		environ map[string]string
		want    []string
	}{
		{"parse error and negative tokens",
			map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m",
				"LLMPROBER_MAX_CONCURRENCY": "x", "LLMPROBER_PROMPT_TOKENS": "-5"},
			[]string{
				`LLMPROBER_MAX_CONCURRENCY: must be an integer (got "x")`,
				`LLMPROBER_PROMPT_TOKENS: must be a positive number of tokens`,
			}},
		{"every kind at once",
			map[string]string{"LLMPROBER_TARGET_URL": "http://u:hunter2@127.0.0.1:8000/v1", "LLMPROBER_LOG_LEVEL": "loud",
				"LLMPROBER_TIMEOUT": "30", "LLMPROBER_RATE": "20000", "LLMPROBER_OUTPUT_TOKENS": "2000000",
				"LLMPROBER_READINESS_PATH": "http://127.0.0.1:8000/health", "LLMPROBER_API_KEY_FILE": missing},
			[]string{
				`LLMPROBER_TIMEOUT: must be a duration with a unit, such as "30s" or "1m30s" (got "30")`,
				`LLMPROBER_LOG_LEVEL: unknown log level "loud" (supported: debug, info, warn, error)`,
				`LLMPROBER_TARGET_URL: must not contain credentials; use LLMPROBER_API_KEY or LLMPROBER_API_KEY_FILE`,
				`LLMPROBER_MODEL: required`,
				`LLMPROBER_READINESS_PATH: ` + readinessURLMsg,
				`LLMPROBER_OUTPUT_TOKENS: must be at most 1048576 tokens`,
				`LLMPROBER_RATE: must be at most 10000 requests per second`,
				// What Check finds comes too.
				`LLMPROBER_API_KEY_FILE: could not read API key: could not open API key file: no such file or directory`,
			}},
		{"a config file is named: the parse error only",
			map[string]string{"LLMPROBER_CONFIG": "/etc/llmprober.yml", "LLMPROBER_RATE": "x"},
			[]string{`LLMPROBER_RATE: must be a number (got "x")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromEnv(tt.environ)
			if want := strings.Join(tt.want, "\n"); err == nil || err.Error() != want {
				t.Errorf("error =\n%v\nwant\n%s", err, want)
			}
			if err != nil && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error quotes the password of the URL")
			}
		})
	}
}

func TestFromEnvKeepsParsedValues(t *testing.T) {
	e, err := FromEnv(map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m",
		"LLMPROBER_RATE": "x", "LLMPROBER_MAX_CONCURRENCY": "3"})
	if err == nil {
		t.Fatal("FromEnv succeeded")
	}
	if e.Target.Model != "m" || e.Target.MaxConcurrency != 3 || e.Target.Rate != 0 {
		t.Errorf("Target = %+v, want model m, max concurrency 3, rate 0", e.Target)
	}
}

func TestResolveEnvMessagesNameVariables(t *testing.T) {
	// Advice given for a file names YAML settings; for the environment it
	// names the variables.
	tests := []struct {
		name    string
		environ map[string]string
		want    string
	}{
		{"credentials in the URL",
			map[string]string{"LLMPROBER_TARGET_URL": "http://u:p@127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m"},
			"LLMPROBER_TARGET_URL: must not contain credentials; use LLMPROBER_API_KEY or LLMPROBER_API_KEY_FILE"},
		{"two key sources",
			map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m",
				"LLMPROBER_API_KEY_ENV": "MY_KEY", "LLMPROBER_API_KEY_FILE": "/run/key"},
			// The configuration is invalid, so what Check finds comes too.
			"LLMPROBER_API_KEY_ENV and LLMPROBER_API_KEY_FILE are mutually exclusive; unset one\n" +
				"LLMPROBER_API_KEY_ENV: could not read API key: environment variable MY_KEY is not set"},
		{"key variable named by content",
			map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m",
				"LLMPROBER_API_KEY_ENV": "sk-abc"},
			"LLMPROBER_API_KEY_ENV: must be the name of an environment variable (letters, digits and '_'), not the key itself"},
		{"fixed token count",
			map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m",
				"LLMPROBER_OUTPUT_TOKENS": "-5", "LLMPROBER_MAX_QUEUE": "100001", "LLMPROBER_MAX_CONCURRENCY": "10001"},
			"LLMPROBER_OUTPUT_TOKENS: must be a positive number of tokens\n" +
				"LLMPROBER_MAX_CONCURRENCY: must be at most 10000\n" +
				"LLMPROBER_MAX_QUEUE: must be at most 100000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := FromEnv(tt.environ)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Resolve(e, Overrides{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}

func TestResolveSources(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yml")
	data := "listen_address: 127.0.0.1:7000\nlog_level: warn\ntargets:\n  - name: f\n    base_url: http://127.0.0.1:1/v1\n    model: m\n"
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	envTarget := map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:2/v1", "LLMPROBER_MODEL": "m"}
	tests := []struct {
		name        string
		environ     map[string]string
		flags       Overrides
		wantTarget  string
		wantListen  string
		wantLevel   string
		wantErrText string
	}{
		{name: "file from flag, its globals", flags: Overrides{ConfigPath: file},
			wantTarget: "f", wantListen: "127.0.0.1:7000", wantLevel: "warn"},
		{name: "file from env", environ: map[string]string{"LLMPROBER_CONFIG": file},
			wantTarget: "f", wantListen: "127.0.0.1:7000", wantLevel: "warn"},
		{name: "flag path beats env path", environ: map[string]string{"LLMPROBER_CONFIG": "/absent.yml"}, flags: Overrides{ConfigPath: file},
			wantTarget: "f", wantListen: "127.0.0.1:7000", wantLevel: "warn"},
		{name: "env beats file", environ: map[string]string{"LLMPROBER_LISTEN_ADDRESS": ":8000", "LLMPROBER_LOG_LEVEL": "debug"},
			flags: Overrides{ConfigPath: file}, wantTarget: "f", wantListen: ":8000", wantLevel: "debug"},
		{name: "flag beats env", environ: map[string]string{"LLMPROBER_LISTEN_ADDRESS": ":8000", "LLMPROBER_LOG_LEVEL": "debug"},
			flags: Overrides{ConfigPath: file, ListenAddress: ":8001", LogLevel: "error"}, wantTarget: "f", wantListen: ":8001", wantLevel: "error"},
		{name: "env target, defaults", environ: envTarget,
			wantTarget: "default", wantListen: "127.0.0.1:9477", wantLevel: "info"},
		{name: "env target, flag globals", environ: envTarget, flags: Overrides{ListenAddress: ":8002", LogLevel: "debug"},
			wantTarget: "default", wantListen: ":8002", wantLevel: "debug"},
		{name: "file and env target", environ: envTarget, flags: Overrides{ConfigPath: file},
			wantErrText: "a config file (" + file + " from --config) and a target from the environment (LLMPROBER_MODEL, LLMPROBER_TARGET_URL) cannot be used together; unset one"},
		{name: "env file and env target", environ: map[string]string{"LLMPROBER_CONFIG": file, "LLMPROBER_MODEL": "m"},
			wantErrText: "a config file (" + file + " from LLMPROBER_CONFIG) and a target from the environment (LLMPROBER_MODEL) cannot be used together; unset one"},
		{name: "neither", environ: map[string]string{"LLMPROBER_LOG_LEVEL": "debug", "LLMPROBER_API_KEY": "k"},
			wantErrText: "no targets: set --config or LLMPROBER_TARGET_URL"},
		{name: "bad flag value", environ: envTarget, flags: Overrides{LogLevel: "loud"},
			wantErrText: `log_level (flag): unknown log level "loud" (supported: debug, info, warn, error)`},
		{name: "bad env value over a file", environ: map[string]string{"LLMPROBER_LISTEN_ADDRESS": "nowhere"}, flags: Overrides{ConfigPath: file},
			wantErrText: `LLMPROBER_LISTEN_ADDRESS: must be host:port, such as "127.0.0.1:9477" (got "nowhere")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			environ := tt.environ
			if environ == nil {
				environ = map[string]string{}
			}
			e, err := FromEnv(environ)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Resolve(e, tt.flags)
			if tt.wantErrText != "" {
				if err == nil || err.Error() != tt.wantErrText {
					t.Fatalf("error = %v, want %s", err, tt.wantErrText)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if c.Targets[0].Name != tt.wantTarget || c.ListenAddress != tt.wantListen || c.LogLevel != tt.wantLevel {
				t.Errorf("target %q listen %q level %q; want %q %q %q",
					c.Targets[0].Name, c.ListenAddress, c.LogLevel, tt.wantTarget, tt.wantListen, tt.wantLevel)
			}
		})
	}
}

func TestFromEnvProcess(t *testing.T) {
	t.Setenv("LLMPROBER_TARGET_URL", "http://127.0.0.1:9/v1")
	t.Setenv("LLMPROBER_RATE", "2")
	e, err := FromEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Target.URL != "http://127.0.0.1:9/v1" || e.Target.Rate != 2 {
		t.Errorf("FromEnv(nil) = %+v, want the process environment", e.Target)
	}
}

func TestResolveEnvObjective(t *testing.T) {
	e, err := FromEnv(map[string]string{
		"LLMPROBER_TARGET_URL":  "http://127.0.0.1:8000/v1",
		"LLMPROBER_MODEL":       "m",
		"LLMPROBER_SLO_TTFT":    "300ms",
		"LLMPROBER_SLO_ITL":     "40ms",
		"LLMPROBER_SLO_PERIOD":  "28d",
		"LLMPROBER_SLO_LATENCY": "",
		"LLMPROBER_SLO_NAME":    "",
		"LLMPROBER_SLO_TTFOT":   "",
		"LLMPROBER_SLO_TPOT":    "",
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(e, Overrides{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	// Unset thresholds stay unset; name, attainment and period default.
	want := []Objective{{Name: "default", TTFT: ptr(300 * time.Millisecond), ITL: ptr(40 * time.Millisecond),
		Attainment: ptr(0.99), Period: Period(28 * 24 * time.Hour)}}
	if got := c.Targets[0].Objectives; !reflect.DeepEqual(got, want) {
		t.Errorf("objectives = %+v, want %+v", got, want)
	}
}

func TestResolveEnvWithoutObjective(t *testing.T) {
	e, err := FromEnv(map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(e, Overrides{})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if got := c.Targets[0].Objectives; got != nil {
		t.Errorf("objectives = %+v, want none", got)
	}
}

func TestResolveEnvObjectiveErrorsNameVariables(t *testing.T) {
	base := map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m"}
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"bad period", map[string]string{"LLMPROBER_SLO_TTFT": "1s", "LLMPROBER_SLO_PERIOD": "30x"},
			`LLMPROBER_SLO_PERIOD: invalid period: use days or weeks, such as "30d" or "4w", or a duration such as "720h"`},
		{"misspelt threshold", map[string]string{"LLMPROBER_SLO_TTF": "500ms"},
			"LLMPROBER_SLO_TTF: unknown variable; the objective set's variables are LLMPROBER_SLO_ATTAINMENT, LLMPROBER_SLO_ITL, " +
				"LLMPROBER_SLO_LATENCY, LLMPROBER_SLO_NAME, LLMPROBER_SLO_PERIOD, LLMPROBER_SLO_SCHEDULED_LATENCY, " +
				"LLMPROBER_SLO_TPOT, LLMPROBER_SLO_TTFOT, LLMPROBER_SLO_TTFT"},
		{"zero period", map[string]string{"LLMPROBER_SLO_TTFT": "1s", "LLMPROBER_SLO_PERIOD": "0d"},
			"LLMPROBER_SLO_PERIOD: must be between 3d and 366d (the longest alert window is 3d)"},
		{"attainment out of range", map[string]string{"LLMPROBER_SLO_TTFT": "1s", "LLMPROBER_SLO_ATTAINMENT": "1.5"},
			"LLMPROBER_SLO_ATTAINMENT: must be between 0 and 1 (exclusive), such as 0.99"},
		{"no threshold", map[string]string{"LLMPROBER_SLO_NAME": "gold"},
			"LLMPROBER_SLO_*: must set at least one threshold (ttft, ttfot, itl, tpot, latency or scheduled_latency)"},
		{"inapplicable to a non-streamed target", map[string]string{"LLMPROBER_STREAM": "false", "LLMPROBER_SLO_ITL": "50ms"},
			"LLMPROBER_SLO_ITL: needs a streaming target (stream: true)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			environ := maps.Clone(base)
			maps.Copy(environ, tt.vars)
			e, err := FromEnv(environ)
			if err == nil {
				_, err = Resolve(e, Overrides{})
			}
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}
