package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// withoutSource returns a copy of c without its source, for comparisons.
func withoutSource(c *Config) Config {
	out := *c
	out.src = nil
	return out
}

func TestLoadFull(t *testing.T) {
	c, err := Load("testdata/full.yml")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := Config{
		ListenAddress: "0.0.0.0:9477",
		LogLevel:      "debug",
		Targets: []Target{
			{
				Name:     "vllm-llama",
				BaseURL:  "https://vllm.internal:8443/v1",
				Model:    "meta-llama/Llama-3.1-8B-Instruct",
				Backend:  BackendHTTP,
				API:      APICompletions,
				Stream:   ptr(false),
				Provider: "vllm",
				Timeout:  90 * time.Second,
				Headers:  map[string]string{"X-Team": "inference", "X-Env": "staging"},
				Tag:      "synthetic",
				Auth:     Auth{APIKeyFile: "/run/secrets/vllm-key", Header: "X-Api-Key"},
				TLS: TLS{
					CAFile:     "/etc/llmprober/ca.pem",
					CertFile:   "/etc/llmprober/client.pem",
					KeyFile:    "/etc/llmprober/client-key.pem",
					ServerName: "vllm.internal",
				},
				Readiness: Readiness{Path: "/health", Timeout: 3 * time.Second, Interval: time.Second, StartupTimeout: 15 * time.Minute},
				Workload: Workload{
					PromptTokens:    Distribution{Mean: 512, Stdev: 64, Min: 256, Max: 1024},
					OutputTokens:    Distribution{Mean: 200, Min: 200, Max: 200},
					MaxTokensFields: []string{"max_tokens"},
					IgnoreEOS:       true,
					Seed:            42,
				},
				Schedule: Schedule{Strategy: "constant", Rate: 2, Rampup: 30 * time.Second, MaxConcurrency: 8, MaxQueue: ptr(0)},
			},
			{
				// Everything but name, base_url, model, auth and the output
				// mean and stdev is a default.
				Name:      "local",
				BaseURL:   "http://127.0.0.1:8000/v1",
				Model:     "qwen2.5-0.5b",
				Backend:   BackendHTTP,
				API:       "chat",
				Stream:    ptr(true),
				Provider:  "openai",
				Timeout:   60 * time.Second,
				Auth:      Auth{APIKeyEnv: "LOCAL_API_KEY", Header: "Authorization"},
				Readiness: Readiness{Path: "models", Timeout: 5 * time.Second, Interval: 2 * time.Second, StartupTimeout: 10 * time.Minute},
				Workload: Workload{
					PromptTokens: Distribution{Mean: 128, Min: 128, Max: 128},
					// min defaults to 1, max to ⌈4·32⌉ = 128.
					OutputTokens:    Distribution{Mean: 32, Stdev: 8, Min: 1, Max: 128},
					MaxTokensFields: []string{"max_tokens", "max_completion_tokens"},
				},
				Schedule: Schedule{Strategy: "constant", Rate: 0.2, MaxConcurrency: 4, MaxQueue: ptr(4)},
			},
			fullChatTurns,
			fullReplay,
			fullRealtime,
		},
		Windows:    []time.Duration{30 * time.Second, 5 * time.Minute, time.Hour},
		Confidence: ptr(0.99), Warmup: 30 * time.Second, WindowSampleCap: 200000,
		WindowGauges: WindowGauges{Export: []string{"percentiles", "means", "slo", "intervals"}, Percentiles: []string{"p50", "p90", "p99"}},
		SeriesLimit:  500000,
	}
	if got := withoutSource(c); !reflect.DeepEqual(got, want) {
		t.Errorf("Load(full.yml) =\n%+v\nwant\n%+v", got, want)
	}
}

func TestApplyDefaultsInCode(t *testing.T) {
	// A Config built in code has no source: zero means unset everywhere.
	c := &Config{Targets: []Target{{Name: "a", BaseURL: "http://127.0.0.1:1/v1", Model: "m", API: APICompletions}}}
	c.ApplyDefaults()
	once := withoutSource(c)
	c.ApplyDefaults()
	if !reflect.DeepEqual(withoutSource(c), once) {
		t.Errorf("ApplyDefaults is not idempotent: %+v then %+v", once, withoutSource(c))
	}
	tg := c.Targets[0]
	if c.ListenAddress != "127.0.0.1:9477" || c.LogLevel != "info" {
		t.Errorf("globals = %q, %q; want 127.0.0.1:9477, info", c.ListenAddress, c.LogLevel)
	}
	if !reflect.DeepEqual(tg.Workload.MaxTokensFields, []string{"max_tokens"}) {
		t.Errorf("completions MaxTokensFields = %v, want [max_tokens]", tg.Workload.MaxTokensFields)
	}
	if tg.Schedule.Rate != 0.2 || tg.Schedule.MaxConcurrency != 4 || *tg.Schedule.MaxQueue != 4 || tg.Timeout != time.Minute {
		t.Errorf("schedule/timeout defaults = %+v, %v", tg.Schedule, tg.Timeout)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestLoadInvalid(t *testing.T) {
	creds := func(part string) string {
		return `looks like a credential header (its name has "` + part + `"), and credentials are not accepted in headers: ` +
			"name the header in auth.header and give the key with auth.api_key_env or auth.api_key_file"
	}
	tests := []struct {
		file string
		want []string // every line of the error, without the "testdata/" prefix
	}{
		{"invalid-unknown-key.yml", []string{`invalid-unknown-key.yml:5: targets[0].modl: unknown field "modl" (did you mean "model"?)`}},
		{"invalid-unknown-nested-key.yml", []string{`invalid-unknown-nested-key.yml:6: targets[0].schedule.ratee: unknown field "ratee" (did you mean "rate"?)`}},
		{"invalid-unknown-key-case.yml", []string{
			`invalid-unknown-key-case.yml:5: targets[0].Timeout: unknown field "Timeout" (did you mean "timeout"?)`,
			`invalid-unknown-key-case.yml:6: targets[0].schedule.RATE: unknown field "RATE" (did you mean "rate"?)`}},
		{"invalid-unknown-top-key.yml", []string{`invalid-unknown-top-key.yml:1: listen_addresss: unknown field "listen_addresss" (did you mean "listen_address"?)`}},
		{"invalid-duplicate-key.yml", []string{`invalid-duplicate-key.yml:5: targets[0].model: duplicate key (first at line 4)`}},
		{"invalid-not-mapping.yml", []string{`invalid-not-mapping.yml:1: the configuration must be a mapping of settings, such as "targets:"`}},
		{"invalid-multiple-documents.yml", []string{`invalid-multiple-documents.yml:5: only one YAML document is allowed`}},
		{"invalid-syntax.yml", []string{`invalid-syntax.yml:4: could not find expected ':'`}},
		{"invalid-no-targets.yml", []string{`invalid-no-targets.yml:2: targets: at least one target is required`}},
		{"invalid-targets-not-list.yml", []string{`invalid-targets-not-list.yml:2: targets: must be a list`}},
		{"invalid-name-missing.yml", []string{`invalid-name-missing.yml:2: targets[0].name: required`}},
		{"invalid-name-chars.yml", []string{`invalid-name-chars.yml:2: targets[0].name: must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.', '-'`}},
		{"invalid-name-too-long.yml", []string{`invalid-name-too-long.yml:2: targets[0].name: must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.', '-'`}},
		{"invalid-name-duplicate.yml", []string{`invalid-name-duplicate.yml:5: targets[1].name: duplicate name "local" (also targets[0])`}},
		{"invalid-base-url-missing.yml", []string{`invalid-base-url-missing.yml:2: targets[0].base_url: required`}},
		{"invalid-base-url-scheme.yml", []string{`invalid-base-url-scheme.yml:3: targets[0].base_url: scheme must be http or https`}},
		{"invalid-base-url-no-host.yml", []string{`invalid-base-url-no-host.yml:3: targets[0].base_url: must have a host`}},
		{"invalid-base-url-credentials.yml", []string{`invalid-base-url-credentials.yml:3: targets[0].base_url: must not contain credentials; use auth.api_key_env or auth.api_key_file`}},
		{"invalid-base-url-query.yml", []string{`invalid-base-url-query.yml:3: targets[0].base_url: must not have a query string`}},
		{"invalid-model-missing.yml", []string{`invalid-model-missing.yml:2: targets[0].model: required`}},
		{"invalid-api.yml", []string{`invalid-api.yml:5: targets[0].api: unknown api "embeddings" (supported: chat, completions)`}},
		{"invalid-timeout-zero.yml", []string{`invalid-timeout-zero.yml:5: targets[0].timeout: must be > 0`}},
		{"invalid-timeout-too-long.yml", []string{`invalid-timeout-too-long.yml:5: targets[0].timeout: must be at most 1h0m0s`}},
		{"invalid-timeout-bare-number.yml", []string{`invalid-timeout-bare-number.yml:5: targets[0].timeout: must be a duration with a unit, such as "30s" or "1m30s", not a bare number`}},
		{"invalid-timeout-syntax.yml", []string{`invalid-timeout-syntax.yml:5: targets[0].timeout: invalid duration "30 seconds": use a unit, such as "30s" or "1m30s"`}},
		{"invalid-stream-type.yml", []string{`invalid-stream-type.yml:5: targets[0].stream: must be true or false`}},
		{"invalid-credential-headers.yml", []string{
			// In file order; X-Team on line 11 and OpenAI-Organization on
			// line 17 are accepted. The values are never quoted.
			`invalid-credential-headers.yml:6: targets[0].headers.authorization: ` + creds("auth"),
			`invalid-credential-headers.yml:7: targets[0].headers.Proxy-Authorization: ` + creds("auth"),
			`invalid-credential-headers.yml:8: targets[0].headers.X-API-KEY: ` + creds("key"),
			`invalid-credential-headers.yml:9: targets[0].headers.api-key: ` + creds("key"),
			`invalid-credential-headers.yml:10: targets[0].headers.Cookie: ` + creds("cookie"),
			`invalid-credential-headers.yml:12: targets[0].headers.X-Goog-Api-Key: ` + creds("key"),
			`invalid-credential-headers.yml:13: targets[0].headers.Ocp-Apim-Subscription-Key: ` + creds("key"),
			`invalid-credential-headers.yml:14: targets[0].headers.X-Auth-Token: ` + creds("auth"),
			`invalid-credential-headers.yml:15: targets[0].headers.X-Client-Secret: ` + creds("secret"),
			`invalid-credential-headers.yml:16: targets[0].headers.apikey: ` + creds("key"),
		}},
		{"invalid-key-in-wrong-fields.yml", []string{
			// A key pasted into settings that are not free text is never quoted.
			`invalid-key-in-wrong-fields.yml:1: log_level: unknown log level (31 characters, not shown) (supported: debug, info, warn, error)`,
			`invalid-key-in-wrong-fields.yml:6: targets[0].api: unknown api (31 characters, not shown) (supported: chat, completions)`,
			`invalid-key-in-wrong-fields.yml:7: targets[0].timeout: invalid duration (31 characters, not shown): use a unit, such as "30s" or "1m30s"`,
			`invalid-key-in-wrong-fields.yml:8: targets[0].backend: unknown backend (31 characters, not shown) (supported: openai_http, openai_websocket)`,
			`invalid-key-in-wrong-fields.yml:10: targets[0].auth.api_key_env: must be the name of an environment variable (letters, digits and '_'), not the key itself`,
			`invalid-key-in-wrong-fields.yml:12: targets[0].schedule.strategy: unknown strategy (31 characters, not shown) (supported: synchronous, concurrent, throughput, constant, poisson, trace)`,
			`invalid-key-in-wrong-fields.yml:13: targets[0]: unknown field (31 characters, not shown)`,
			`invalid-key-in-wrong-fields.yml:15: targets[0].workload.max_tokens_fields[0]: unknown field (31 characters, not shown) (supported: max_tokens, max_completion_tokens)`,
		}},
		{"invalid-not-utf8.yml", []string{`invalid-not-utf8.yml:4: column 15: invalid UTF-8 (byte 0xe9); the configuration must be UTF-8 text`}},
		{"invalid-header-name.yml", []string{`invalid-header-name.yml:6: targets[0].headers.X Team: invalid header name`}},
		{"invalid-readiness-path.yml", []string{`invalid-readiness-path.yml:6: targets[0].readiness.path: must be a URL path without query string or fragment`}},
		{"invalid-readiness-url.yml", []string{
			// Targets 3 to 5 (/health, models, none) are accepted.
			`invalid-readiness-url.yml:5: targets[0].readiness.path: ` + readinessURLMsg,
			`invalid-readiness-url.yml:9: targets[1].readiness.path: ` + readinessURLMsg,
			`invalid-readiness-url.yml:13: targets[2].readiness.path: must be a URL path without query string or fragment`,
		}},
		{"invalid-owned-headers.yml", []string{
			// Host (line 13) and X-Team (line 14) are accepted; names match in any case.
			`invalid-owned-headers.yml:6: targets[0].headers.User-Agent: cannot be set in headers: llmprober sets it to identify its requests`,
			`invalid-owned-headers.yml:7: targets[0].headers.x-llmprober-tag: cannot be set in headers: llmprober sets it from tag; use tag`,
			`invalid-owned-headers.yml:8: targets[0].headers.content-type: cannot be set in headers: llmprober sets it to the format of the request body`,
			`invalid-owned-headers.yml:9: targets[0].headers.Accept: cannot be set in headers: llmprober sets it to the response format it reads (JSON or a stream)`,
			`invalid-owned-headers.yml:10: targets[0].headers.Content-Length: cannot be set in headers: the HTTP client sets it to frame the request`,
			`invalid-owned-headers.yml:11: targets[0].headers.Transfer-Encoding: cannot be set in headers: the HTTP client sets it to frame the request`,
			`invalid-owned-headers.yml:12: targets[0].headers.connection: cannot be set in headers: the HTTP client manages connections`,
		}},
		{"invalid-header-value.yml", []string{`invalid-header-value.yml:6: targets[0].headers.X-Team: must not contain line breaks or control characters`}},
		{"invalid-auth-both.yml", []string{`invalid-auth-both.yml:5: targets[0].auth: api_key_env and api_key_file are mutually exclusive`}},
		{"invalid-auth-inline-key.yml", []string{`invalid-auth-inline-key.yml:6: targets[0].auth.api_key: ` + inlineKeyMsg}},
		{"invalid-auth-scalar-key.yml", []string{`invalid-auth-scalar-key.yml:5: targets[0].auth: ` + inlineKeyMsg}},
		{"invalid-target-api-key.yml", []string{`invalid-target-api-key.yml:5: targets[0].api_key: ` + inlineKeyMsg}},
		{"invalid-auth-env-holds-key.yml", []string{`invalid-auth-env-holds-key.yml:6: targets[0].auth.api_key_env: must be the name of an environment variable (letters, digits and '_'), not the key itself`}},
		{"invalid-tls-cert-without-key.yml", []string{`invalid-tls-cert-without-key.yml:5: targets[0].tls: cert_file and key_file must be set together`}},
		{"invalid-readiness-durations.yml", []string{
			`invalid-readiness-durations.yml:6: targets[0].readiness.timeout: must be > 0`,
			`invalid-readiness-durations.yml:7: targets[0].readiness.interval: must be > 0`,
			`invalid-readiness-durations.yml:8: targets[0].readiness.startup_timeout: must be > 0`,
		}},
		{"invalid-strategy.yml", []string{`invalid-strategy.yml:6: targets[0].schedule.strategy: unknown strategy "bursty" (supported: synchronous, concurrent, throughput, constant, poisson, trace)`}},
		{"invalid-strategy-fields.yml", []string{
			`invalid-strategy-fields.yml:7: targets[0].schedule.rate: is not used by strategy synchronous`,
			`invalid-strategy-fields.yml:8: targets[0].schedule.streams: is not used by strategy synchronous`,
			`invalid-strategy-fields.yml:9: targets[0].schedule.rampup: is not used by strategy synchronous`,
			`invalid-strategy-fields.yml:10: targets[0].schedule.seed: is not used by strategy synchronous`,
			`invalid-strategy-fields.yml:11: targets[0].schedule.trace.file: is not used by strategy synchronous`,
		}},
		{"invalid-poisson-rate.yml", []string{`invalid-poisson-rate.yml:7: targets[0].schedule.rate: must be > 0`}},
		{"invalid-concurrent-streams.yml", []string{
			// Streams is not written: the schedule's line is given.
			`invalid-concurrent-streams.yml:5: targets[0].schedule.streams: required by strategy concurrent: the number of streams, >= 1`,
			// 10 streams > 2 slots + 3 queued.
			`invalid-concurrent-streams.yml:12: targets[1].schedule.streams: must be at most max_concurrency + max_queue (5): each stream's request needs a slot or a place in the queue`,
			`invalid-concurrent-streams.yml:13: targets[1].schedule.rampup: must be >= 0`,
		}},
		{"invalid-trace-settings.yml", []string{
			`invalid-trace-settings.yml:7: targets[0].schedule.trace.file: required by strategy trace`,
			`invalid-trace-settings.yml:8: targets[0].schedule.trace.format: unknown format "parquet" (supported: jsonl, azure_csv)`,
			`invalid-trace-settings.yml:9: targets[0].schedule.trace.time_scale: must be > 0`,
		}},
		{"invalid-conversation.yml", []string{
			`invalid-conversation.yml:7: targets[0].workload.conversation.turns: must be from 1 to 1000`,
			`invalid-conversation.yml:8: targets[0].workload.conversation.think_time: must be >= 0`,
			`invalid-conversation.yml:9: targets[0].workload.conversation.history: unknown history "everything" (supported: full, last_turn, new_prompt)`,
			`invalid-conversation.yml:10: targets[0].workload.conversation.prompt_tokens.mean: must be > 0`,
			`invalid-conversation.yml:15: targets[1].workload.conversation.turns: required: the number of turns, from 1 to 1000`,
		}},
		{"invalid-conversation-trace.yml", []string{
			`invalid-conversation-trace.yml:6: targets[0].workload.prompt_tokens: is not used by strategy trace: the trace gives each request's token counts`,
			`invalid-conversation-trace.yml:7: targets[0].workload.conversation: cannot be used with strategy trace: the trace's conversation_id and turn make conversations`,
		}},
		{"invalid-rate-zero.yml", []string{`invalid-rate-zero.yml:6: targets[0].schedule.rate: must be > 0`}},
		{"invalid-rate-infinite.yml", []string{`invalid-rate-infinite.yml:6: targets[0].schedule.rate: must be a finite number`}},
		{"invalid-rate-type.yml", []string{`invalid-rate-type.yml:6: targets[0].schedule.rate: must be a number`}},
		{"invalid-max-concurrency.yml", []string{`invalid-max-concurrency.yml:6: targets[0].schedule.max_concurrency: must be >= 1`}},
		{"invalid-max-queue.yml", []string{`invalid-max-queue.yml:6: targets[0].schedule.max_queue: must be >= 0`}},
		{"invalid-schedule-limits.yml", []string{
			`invalid-schedule-limits.yml:6: targets[0].schedule.rate: must be at most 10000 requests per second`,
			`invalid-schedule-limits.yml:7: targets[0].schedule.max_concurrency: must be at most 10000`,
			`invalid-schedule-limits.yml:8: targets[0].schedule.max_queue: must be at most 100000`,
		}},
		{"invalid-max-tokens-fields-empty.yml", []string{`invalid-max-tokens-fields-empty.yml:6: targets[0].workload.max_tokens_fields: must list at least one of max_tokens, max_completion_tokens`}},
		{"invalid-max-tokens-fields-unknown.yml", []string{
			`invalid-max-tokens-fields-unknown.yml:6: targets[0].workload.max_tokens_fields[1]: unknown field "max_new_tokens" (supported: max_tokens, max_completion_tokens)`,
			`invalid-max-tokens-fields-unknown.yml:6: targets[0].workload.max_tokens_fields[2]: "max_tokens" is listed twice`,
		}},
		{"invalid-distribution-key.yml", []string{`invalid-distribution-key.yml:8: targets[0].workload.prompt_tokens.sd: unknown field "sd"`}},
		{"invalid-distribution-scalar.yml", []string{`invalid-distribution-scalar.yml:6: targets[0].workload.prompt_tokens: must be an integer or a mapping with mean, stdev, min and max`}},
		// A single number is one value: one problem, at the distribution itself.
		{"invalid-distribution-mean.yml", []string{`invalid-distribution-mean.yml:6: targets[0].workload.prompt_tokens: must be a positive number of tokens`}},
		{"invalid-distribution-negative.yml", []string{`invalid-distribution-negative.yml:6: targets[0].workload.prompt_tokens: must be a positive number of tokens`}},
		{"invalid-token-limits.yml", []string{
			// Exactly 1048576 (output_tokens, line 13) is accepted. The mean
			// over the limit is the only problem of its distribution: max
			// gets no default from it and is not compared with it.
			`invalid-token-limits.yml:6: targets[0].workload.prompt_tokens: must be at most 1048576 tokens`,
			`invalid-token-limits.yml:7: targets[0].workload.output_tokens.max: must be at most 1048576 tokens`,
			`invalid-token-limits.yml:12: targets[1].workload.prompt_tokens.mean: must be at most 1048576 tokens`,
		}},
		{"invalid-distribution-stdev.yml", []string{`invalid-distribution-stdev.yml:8: targets[0].workload.output_tokens.stdev: must be >= 0`}},
		{"invalid-distribution-bounds.yml", []string{
			`invalid-distribution-bounds.yml:8: targets[0].workload.prompt_tokens.min: must be <= mean (100)`,
			`invalid-distribution-bounds.yml:9: targets[0].workload.prompt_tokens.max: must be >= mean (100)`,
		}},
		{"invalid-log-level.yml", []string{`invalid-log-level.yml:1: log_level: unknown log level "verbose" (supported: debug, info, warn, error)`}},
		{"invalid-listen-address.yml", []string{`invalid-listen-address.yml:1: listen_address: must be host:port, such as "127.0.0.1:9477" (got "localhost")`}},
		{"invalid-windows.yml", []string{
			`invalid-windows.yml:1: windows: must list at most 4 windows`,
			`invalid-windows.yml:1: windows[1]: must be > 0`,
			`invalid-windows.yml:1: windows[2]: must be > 0`,
			`invalid-windows.yml:1: windows[3]: duplicate window 1m0s (also windows[0])`,
			`invalid-windows.yml:1: windows[4]: must be at least 1s`,
		}},
		{"invalid-objectives.yml", []string{
			`invalid-objectives.yml:7: targets[0].objectives[0].ttft: must be > 0`,
			`invalid-objectives.yml:8: targets[0].objectives[0].attainment: must be between 0 and 1 (exclusive), such as 0.99`,
			`invalid-objectives.yml:9: targets[0].objectives[0].period: must be between 3d and 366d (the longest alert window is 3d)`,
			`invalid-objectives.yml:10: targets[0].objectives[1].name: duplicate objective set "default" (also objectives[0])`,
			`invalid-objectives.yml:12: targets[0].objectives[1].attainment: must be between 0 and 1 (exclusive), such as 0.99`,
			`invalid-objectives.yml:13: targets[0].objectives[2]: must set at least one threshold (ttft, ttfot, itl, tpot, latency or scheduled_latency)`,
		}},
		{"invalid-objectives-syntax.yml", []string{
			`invalid-objectives-syntax.yml:7: targets[0].objectives[0].ttfx: unknown field "ttfx" (did you mean "ttft"?)`,
			`invalid-objectives-syntax.yml:9: targets[0].objectives[0].period: invalid period: use days or weeks, such as "30d" or "4w", or a duration such as "720h"`,
		}},
		{"invalid-objectives-inapplicable.yml", []string{
			`invalid-objectives-inapplicable.yml:10: targets[0].objectives[0].ttft: needs a streaming target (stream: true)`,
			`invalid-objectives-inapplicable.yml:11: targets[0].objectives[0].ttfot: needs a streaming target (stream: true)`,
			`invalid-objectives-inapplicable.yml:12: targets[0].objectives[0].itl: needs a streaming target (stream: true)`,
			`invalid-objectives-inapplicable.yml:13: targets[0].objectives[0].scheduled_latency: needs a strategy with an arrival schedule (constant, poisson or trace), not "synchronous"`,
		}},
		{"invalid-windows-syntax.yml", []string{
			`invalid-windows-syntax.yml:2: windows[0]: invalid duration "1 minute": use a unit, such as "30s" or "1m30s"`,
			`invalid-windows-syntax.yml:3: windows[1]: must be a duration with a unit, such as "30s" or "1m30s", not a bare number`,
		}},
		{"invalid-windows-empty.yml", []string{`invalid-windows-empty.yml:1: windows: must list at least one window, such as [1m, 5m, 1h]`}},
		{"invalid-confidence.yml", []string{`invalid-confidence.yml:1: confidence: must be between 0 and 1 (exclusive), such as 0.95, or null to turn intervals off`}},
		{"invalid-confidence-type.yml", []string{`invalid-confidence-type.yml:1: confidence: must be a number`}},
		{"invalid-warmup.yml", []string{`invalid-warmup.yml:1: warmup: must be >= 0`}},
		{"invalid-window-sample-cap.yml", []string{`invalid-window-sample-cap.yml:1: window_sample_cap: must be between 720 and 10000000 records`}},
		{"invalid-many-problems.yml", manyProblems},
		{"invalid-backend.yml", []string{
			`invalid-backend.yml:5: targets[0].backend: unknown backend "grpc" (supported: openai_http, openai_websocket)`,
			`invalid-backend.yml:9: targets[1].realtime: only used by backend openai_websocket`,
		}},
		{"invalid-realtime.yml", []string{
			`invalid-realtime.yml:6: targets[0].api: not used by backend openai_websocket (it sends audio and reads a transcript)`,
			`invalid-realtime.yml:7: targets[0].stream: backend openai_websocket always streams`,
			`invalid-realtime.yml:9: targets[0].workload.conversation: not supported by backend openai_websocket`,
			`invalid-realtime.yml:11: targets[0].realtime.path: must be an absolute URL path such as "/v1/realtime", without query string or fragment`,
			`invalid-realtime.yml:13: targets[0].realtime.audio_duration: audio_file and audio_duration are mutually exclusive`,
			`invalid-realtime.yml:14: targets[0].realtime.chunk_duration: must be between 10ms and 10s`,
			`invalid-realtime.yml:15: targets[0].realtime.pacing: unknown pacing "slow" (supported: realtime, fast)`,
			`invalid-realtime.yml:21: targets[1].realtime.audio_duration: must be > 0 and at most 10m0s`,
		}},
		{"invalid-realtime-timeout.yml", []string{
			`invalid-realtime-timeout.yml:7: targets[0].realtime.audio_duration: pacing realtime sends the audio over its own duration (1m30s), so every request would time out: timeout (1m0s) must exceed it; raise timeout, shorten the audio or use pacing fast`,
			`invalid-realtime-timeout.yml:13: targets[1].realtime.audio_duration: pacing realtime sends the audio over its own duration (2s), so every request would time out: timeout (2s) must exceed it; raise timeout, shorten the audio or use pacing fast`,
		}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			c, err := Load(filepath.Join("testdata", tt.file))
			if err == nil {
				t.Fatalf("Load succeeded with %+v", withoutSource(c))
			}
			var errs Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %v is %T, want Errors", err, err)
			}
			want := strings.Join(tt.want, "\n")
			if got := strings.ReplaceAll(err.Error(), "testdata/", ""); got != want {
				t.Errorf("error =\n%s\nwant\n%s", got, want)
			}
			if strings.Contains(err.Error(), "sk-") {
				t.Errorf("error quotes a secret: %s", err)
			}
		})
	}
	files, err := filepath.Glob("testdata/invalid-*.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("%s has no test case", f)
		}
	}
}

// readinessURLMsg rejects a full URL as readiness.path.
const readinessURLMsg = `must be "none", a path such as "/health", or a path relative to base_url such as "models"; not a full URL`

// manyProblems is every problem Load finds in invalid-many-problems.yml, by
// line: those with the document's shape (bare-number timeout, "many" as an
// integer, unknown keys) and those with the values that could be decoded.
// The timeout and max_concurrency that could not be decoded get no second
// problem ("must be > 0", "must be >= 1"), and targets[1] gets no "model:
// required" after "did you mean model?".
var manyProblems = []string{
	`invalid-many-problems.yml:1: log_level: unknown log level "loud" (supported: debug, info, warn, error)`,
	`invalid-many-problems.yml:4: targets[0].base_url: scheme must be http or https`,
	`invalid-many-problems.yml:6: targets[0].api: unknown api "embeddings" (supported: chat, completions)`,
	`invalid-many-problems.yml:7: targets[0].timeout: must be a duration with a unit, such as "30s" or "1m30s", not a bare number`,
	`invalid-many-problems.yml:9: targets[0].schedule.rate: must be > 0`,
	`invalid-many-problems.yml:10: targets[0].schedule.max_concurrency: must be an integer`,
	`invalid-many-problems.yml:13: targets[1].name: duplicate name "a" (also targets[0])`,
	`invalid-many-problems.yml:14: targets[1].base_url: must not contain credentials; use auth.api_key_env or auth.api_key_file`,
	`invalid-many-problems.yml:16: targets[1].headers.User-Agent: cannot be set in headers: llmprober sets it to identify its requests`,
	`invalid-many-problems.yml:18: targets[1].workload.prompt_tokens: must be at most 1048576 tokens`,
	`invalid-many-problems.yml:19: targets[1].modl: unknown field "modl" (did you mean "model"?)`,
	`invalid-many-problems.yml:20: targets[2].model: required`,
	`invalid-many-problems.yml:25: targets[2].readiness.path: ` + readinessURLMsg,
	`invalid-many-problems.yml:26: targets[2].retries: unknown field "retries"`,
}

func TestResolveListsEveryProblem(t *testing.T) {
	// Resolve adds what Check finds (the key file and the CA file cannot be
	// read) to what Load finds, in line order.
	e, err := FromEnv(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(e, Overrides{ConfigPath: "testdata/invalid-many-problems.yml"})
	want := slices.Concat(manyProblems[:6],
		[]string{`invalid-many-problems.yml:12: targets[0].auth.api_key_file: could not read API key: could not open API key file: no such file or directory`},
		manyProblems[6:12],
		[]string{`invalid-many-problems.yml:23: targets[2].tls.ca_file: could not read CA file: could not open TLS file: no such file or directory`},
		manyProblems[12:])
	if err == nil {
		t.Fatal("Resolve succeeded")
	}
	if got := strings.ReplaceAll(err.Error(), "testdata/", ""); got != strings.Join(want, "\n") {
		t.Errorf("error =\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error quotes the password of the URL: %s", err)
	}
}

func TestParseStructuralAndValueProblems(t *testing.T) {
	// Problems with the shape do not hide those with values, and a value
	// that could not be decoded gets no second, derived problem.
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"duplicate key keeps the rest of the target",
			"targets:\n  - name: a\n    name: b\n    base_url: ftp://h/v1\n    model: m\n",
			[]string{
				"d.yml:3: targets[0].name: duplicate key (first at line 2)",
				"d.yml:4: targets[0].base_url: scheme must be http or https",
			}},
		{"wrong type beside a bad value",
			"targets:\n  - name: a\n    base_url: http://h/v1\n    model: m\n    stream: maybe\n    schedule: {rate: 0}\n",
			[]string{
				"d.yml:5: targets[0].stream: must be true or false",
				"d.yml:6: targets[0].schedule.rate: must be > 0",
			}},
		{"targets not a list: no derived 'at least one target'",
			"log_level: loud\ntargets: {name: a}\n",
			[]string{
				`d.yml:1: log_level: unknown log level "loud" (supported: debug, info, warn, error)`,
				"d.yml:2: targets: must be a list",
			}},
		{"bad distribution scalar: no derived mean or min",
			"targets:\n  - name: a\n    base_url: http://h/v1\n    model: m\n    workload: {prompt_tokens: many}\n",
			[]string{"d.yml:5: targets[0].workload.prompt_tokens: must be an integer or a mapping with mean, stdev, min and max"}},
		{"unknown distribution key keeps the rest of the distribution",
			"targets:\n  - name: a\n    base_url: http://h/v1\n    model: m\n    workload:\n      prompt_tokens: {mean: 10, sd: 2, max: 5}\n",
			[]string{
				"d.yml:6: targets[0].workload.prompt_tokens.sd: unknown field \"sd\"",
				"d.yml:6: targets[0].workload.prompt_tokens.max: must be >= mean (10)",
			}},
		{"tls values decoded beside a wrong type",
			"targets:\n  - name: a\n    base_url: http://h/v1\n    model: m\n    tls: {cert_file: c.pem, insecure_skip_verify: yes-please}\n",
			// On one line, problems with the shape come first.
			[]string{
				"d.yml:5: targets[0].tls.insecure_skip_verify: must be true or false",
				"d.yml:5: targets[0].tls: cert_file and key_file must be set together",
			}},
		{"not a mapping: nothing else",
			"- a\n- b\n",
			[]string{`d.yml:1: the configuration must be a mapping of settings, such as "targets:"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "d.yml")
			if want := strings.Join(tt.want, "\n"); err == nil || err.Error() != want {
				t.Errorf("error =\n%v\nwant\n%s", err, want)
			}
		})
	}
}

func TestParseHeaderLimit(t *testing.T) {
	// headers builds a flow mapping of n distinct headers.
	headers := func(n int) string {
		h := make([]string, n)
		for i := range h {
			h[i] = fmt.Sprintf("X-H%d: v", i)
		}
		return "{" + strings.Join(h, ", ") + "}"
	}
	base := "targets:\n  - name: a\n    base_url: http://h/v1\n    model: m\n    headers: "
	c, err := Parse([]byte(base+headers(LimitHeaders)), "h.yml")
	if err != nil || len(c.Targets[0].Headers) != 100 {
		t.Fatalf("100 headers: error %v", err)
	}
	_, err = Parse([]byte(base+headers(LimitHeaders+1)), "h.yml")
	if want := "h.yml:5: targets[0].headers: must have at most 100 entries"; err == nil || err.Error() != want {
		t.Errorf("101 headers: error = %v, want %s", err, want)
	}
}

func TestParseErrorsWithoutFile(t *testing.T) {
	// Paths and lines without a file name: "line: path" is not printed as
	// "file:line" when the name is empty.
	_, err := Parse([]byte("targets:\n  - name: x\n"), "")
	want := "targets[0].base_url: required\ntargets[0].model: required"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want\n%s", err, want)
	}
}

func TestParseSecretsNeverQuoted(t *testing.T) {
	const secret = "sk-THE-SECRET-VALUE"
	tests := []struct {
		name string
		yaml string
	}{
		{"inline auth key", "targets:\n  - name: a\n    auth: {api_key: " + secret + "}\n"},
		{"auth as key", "targets:\n  - name: a\n    auth: " + secret + "\n"},
		{"quoted auth as key", "targets:\n  - name: a\n    auth: \"" + secret + "\"\n"},
		{"auth as list", "targets:\n  - name: a\n    auth: [" + secret + "]\n"},
		{"target key", "targets:\n  - name: a\n    api_key: " + secret + "\n"},
		{"key in env name", "targets:\n  - name: a\n    auth: {api_key_env: " + secret + "}\n"},
		{"key in url", "targets:\n  - name: a\n    base_url: http://u:" + secret + "@h/v1\n"},
		{"key in url query", "targets:\n  - name: a\n    base_url: http://h/v1?key=" + secret + "\n"},
		{"bad url with key", "targets:\n  - name: a\n    base_url: \"http://u:" + secret + "@h:port/v1\"\n"},
		{"authorization header", "targets:\n  - name: a\n    headers: {Authorization: Bearer " + secret + "}\n"},
		{"header as list", "targets:\n  - name: a\n    headers: {X-Key: [" + secret + "]}\n"},
		{"unterminated quote", "targets:\n  - name: a\n    auth: \"" + secret + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml), "x.yml")
			if err == nil {
				t.Fatal("Parse succeeded")
			}
			if strings.Contains(err.Error(), "THE-SECRET") {
				t.Errorf("error quotes the secret: %s", err)
			}
		})
	}
}

func TestParseAnchorsAndMerge(t *testing.T) {
	// The first target is an anchor merged into the others; explicit keys
	// override merged ones. Target a inherits rate 0, reported at the line
	// where it is written (6); target b overrides it.
	data := `targets:
  - &base
    name: z
    base_url: http://127.0.0.1:3/v1
    model: m
    schedule: {rate: 0, max_concurrency: 2}
  - <<: *base
    name: a
  - <<: *base
    name: b
    schedule: {rate: 1}
`
	_, err := Parse([]byte(data), "m.yml")
	want := "m.yml:6: targets[0].schedule.rate: must be > 0\n" +
		"m.yml:6: targets[1].schedule.rate: must be > 0"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want\n%s", err, want)
	}
	c, err := Parse([]byte(strings.Replace(data, "rate: 0,", "rate: 3,", 1)), "m.yml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	b := c.Targets[2]
	// b takes model and base_url from the anchor, and its own schedule
	// mapping replaces the anchor's whole (merges are not deep): rate 1,
	// max_concurrency back to the default 4.
	if b.Name != "b" || b.Model != "m" || b.BaseURL != "http://127.0.0.1:3/v1" || b.Schedule.Rate != 1 || b.Schedule.MaxConcurrency != 4 {
		t.Errorf("target b = %+v", b)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "absent.yml"))
	if err == nil || !strings.HasSuffix(err.Error(), "absent.yml: could not open configuration file: no such file or directory") {
		t.Errorf("error = %v, want could not read config", err)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, data := range []string{"", "# only a comment\n", "---\n"} {
		_, err := Parse([]byte(data), "e.yml")
		if err == nil || err.Error() != "e.yml: targets: at least one target is required" {
			t.Errorf("Parse(%q) error = %v, want no targets", data, err)
		}
	}
}

func TestParseAliasBomb(t *testing.T) {
	// Each target merges the previous one twice: expanding target k means
	// following 2 + 4 + … + 2^k aliases, so target 24 alone would need
	// 2^25 − 2 ≈ 33 million. The walk stops after maxAliases.
	var b strings.Builder
	b.WriteString("targets:\n  - &a0 {name: x}\n")
	for i := 1; i < 25; i++ {
		fmt.Fprintf(&b, "  - &a%d {<<: [*a%d, *a%d]}\n", i, i-1, i-1)
	}
	_, err := Parse([]byte(b.String()), "bomb.yml")
	want := "bomb.yml: document is too large (more than 262144 values or 10000 aliases followed)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}

func TestParseMergeCycle(t *testing.T) {
	_, err := Parse([]byte("targets:\n  - &a {name: x, <<: *a}\n"), "c.yml")
	want := "c.yml:2: targets[0]: a merge (<<) includes the mapping that contains it"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
