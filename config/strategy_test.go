package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCheckTraceFiles(t *testing.T) {
	const tmpl = `targets:
  - name: replay
    base_url: http://127.0.0.1:8000/v1
    model: m
    schedule:
      strategy: trace
      trace:
        file: %s
        loop: %v
`
	// Line 8 is trace.file, line 9 trace.loop. Each trace problem names the
	// trace file, its line and its field.
	tests := []struct {
		file string
		loop bool
		want string
	}{
		{"testdata/traces/ok.jsonl", true, ""},
		{"testdata/traces/absent.jsonl", false,
			"c.yml:8: targets[0].schedule.trace.file: could not read trace: could not open trace file: no such file or directory"},
		{"testdata/traces/unsorted.jsonl", false,
			"c.yml:8: targets[0].schedule.trace.file: testdata/traces/unsorted.jsonl:2: timestamp: timestamps are not sorted: 0s is earlier than 1s at line 1"},
		{"testdata/traces/negative.jsonl", false,
			"c.yml:8: targets[0].schedule.trace.file: testdata/traces/negative.jsonl:1: timestamp: must not be negative, got -2"},
		{"testdata/traces/empty.jsonl", false,
			"c.yml:8: targets[0].schedule.trace.file: testdata/traces/empty.jsonl: trace is empty: it holds no requests"},
		{"testdata/traces/missing-column.csv", false,
			"c.yml:8: targets[0].schedule.trace.file: testdata/traces/missing-column.csv:1: header: missing column GeneratedTokens (want TIMESTAMP,ContextTokens,GeneratedTokens)"},
		{"testdata/traces/non-numeric.csv", false,
			`c.yml:8: targets[0].schedule.trace.file: testdata/traces/non-numeric.csv:3: ContextTokens: must be an integer from 1 to 1048576, got "many"`},
		{"testdata/traces/no-timestamps.jsonl", false, ""},
		// Without timestamps, each pass follows the previous one at once.
		{"testdata/traces/no-timestamps.jsonl", true, ""},
		{"testdata/traces/zero.jsonl", false, ""},
		{"testdata/traces/zero.jsonl", true,
			"c.yml:9: targets[0].schedule.trace.loop: trace testdata/traces/zero.jsonl cannot loop: its timestamps span no time (every one is 0); " +
				"spread them, or leave them out to replay the rows back to back"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s loop %v", tt.file, tt.loop), func(t *testing.T) {
			c, err := Parse([]byte(fmt.Sprintf(tmpl, tt.file, tt.loop)), "c.yml")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			err = c.Check()
			if got := fmt.Sprint(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
				t.Errorf("Check() = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestStrategyDefaults(t *testing.T) {
	data := `targets:
  - {name: sync, base_url: "http://h/v1", model: m, schedule: {strategy: synchronous}}
  - {name: poisson, base_url: "http://h/v1", model: m, schedule: {strategy: poisson, seed: 3}}
  - {name: replay, base_url: "http://h/v1", model: m, schedule: {strategy: trace, trace: {file: t.csv}}}
  - name: chat
    base_url: http://h/v1
    model: m
    workload:
      conversation: {turns: 3, output_tokens: {mean: 10}}
    schedule: {strategy: concurrent, streams: 8, rampup: 4s}
`
	c, err := Parse([]byte(data), "d.yml")
	if err != nil {
		t.Fatal(err)
	}
	q := DefaultMaxQueue
	want := []Schedule{
		// No rate for a closed loop.
		// Closed loops pause 1 s after an error.
		{Strategy: "synchronous", ErrorBackoff: time.Second, MaxConcurrency: 4, MaxQueue: &q},
		{Strategy: "poisson", Rate: 0.2, Seed: 3, MaxConcurrency: 4, MaxQueue: &q},
		{Strategy: "trace", Trace: Trace{File: "t.csv", TimeScale: 1}, MaxConcurrency: 4, MaxQueue: &q},
		{Strategy: "concurrent", Streams: 8, Rampup: 4 * time.Second, ErrorBackoff: time.Second, MaxConcurrency: 4, MaxQueue: &q},
	}
	for i, w := range want {
		if got := c.Targets[i].Schedule; !reflect.DeepEqual(got, w) {
			t.Errorf("target %d schedule = %+v, want %+v", i, got, w)
		}
	}
	// History defaults to full; the later turns' prompt length follows the
	// workload's (left unset), their output has min 1 and max ⌈4·10⌉.
	wantConv := &Conversation{Turns: 3, History: "full", OutputTokens: Distribution{Mean: 10, Min: 1, Max: 40}}
	if got := c.Targets[3].Workload.Conversation; !reflect.DeepEqual(got, wantConv) {
		t.Errorf("conversation = %+v, want %+v", got, wantConv)
	}
}

func TestResolveEnvStrategy(t *testing.T) {
	base := map[string]string{"LLMPROBER_TARGET_URL": "http://127.0.0.1:8000/v1", "LLMPROBER_MODEL": "m"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	e, err := FromEnv(with("LLMPROBER_STRATEGY", "concurrent", "LLMPROBER_STREAMS", "3", "LLMPROBER_RAMPUP", "2s",
		"LLMPROBER_TURNS", "2", "LLMPROBER_THINK_TIME", "1s", "LLMPROBER_HISTORY", "last_turn"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(e, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Targets[0]
	if tg.Schedule.Strategy != "concurrent" || tg.Schedule.Streams != 3 || tg.Schedule.Rampup != 2*time.Second || tg.Schedule.Rate != 0 {
		t.Errorf("schedule = %+v", tg.Schedule)
	}
	if cv := tg.Workload.Conversation; cv == nil || *cv != (Conversation{Turns: 2, ThinkTime: time.Second, History: "last_turn"}) {
		t.Errorf("conversation = %+v", cv)
	}
	e, _ = FromEnv(with("LLMPROBER_STRATEGY", "trace", "LLMPROBER_TRACE_FILE", "testdata/traces/ok.jsonl",
		"LLMPROBER_TRACE_TIME_SCALE", "0.5", "LLMPROBER_TRACE_LOOP", "true"))
	c, err = Resolve(e, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Targets[0].Schedule.Trace; got != (Trace{File: "testdata/traces/ok.jsonl", TimeScale: 0.5, Loop: true}) {
		t.Errorf("trace = %+v", got)
	}

	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"trace without file", with("LLMPROBER_STRATEGY", "trace"), "LLMPROBER_TRACE_FILE: required by strategy trace"},
		{"think time without turns", with("LLMPROBER_THINK_TIME", "3s"), "LLMPROBER_TURNS: required: the number of turns, from 1 to 1000"},
		{"streams for constant", with("LLMPROBER_STREAMS", "4"), "LLMPROBER_STREAMS: is not used by strategy constant"},
		{"zero turns", with("LLMPROBER_TURNS", "0"), "LLMPROBER_TURNS: must be from 1 to 1000"},
		{"bad trace file", with("LLMPROBER_STRATEGY", "trace", "LLMPROBER_TRACE_FILE", "testdata/traces/unsorted.jsonl", "LLMPROBER_MAX_CONCURRENCY", "0"),
			"LLMPROBER_MAX_CONCURRENCY: must be >= 1\n" +
				"LLMPROBER_TRACE_FILE: testdata/traces/unsorted.jsonl:2: timestamp: timestamps are not sorted: 0s is earlier than 1s at line 1"},
		{"conversation with trace", with("LLMPROBER_STRATEGY", "trace", "LLMPROBER_TRACE_FILE", "testdata/traces/ok.jsonl", "LLMPROBER_TURNS", "2"),
			"LLMPROBER_TURNS: cannot be used with strategy trace: the trace's conversation_id and turn make conversations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := FromEnv(tt.env)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Resolve(e, Overrides{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error =\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
	if _, err := FromEnv(with("LLMPROBER_RAMPUP", "5")); err == nil || !strings.HasPrefix(err.Error(), "LLMPROBER_RAMPUP: must be a duration") {
		t.Errorf("bare rampup: %v", err)
	}
}

// The last two targets of testdata/full.yml: conversations on concurrent
// streams, and a trace replay (rate, prompt and output sizes unused).
var (
	fullChatTurns = Target{
		Name: "chat-turns", BaseURL: "http://127.0.0.1:8000/v1", Model: "qwen2.5-0.5b", Backend: BackendHTTP, API: "chat",
		Stream: ptr(true), Provider: "openai", Timeout: time.Minute, Auth: Auth{Header: "Authorization"},
		Readiness: Readiness{Path: "models", Timeout: 5 * time.Second, Interval: 2 * time.Second, StartupTimeout: 10 * time.Minute},
		Workload: Workload{
			PromptTokens: Fixed(512), OutputTokens: Fixed(64),
			MaxTokensFields: []string{"max_tokens", "max_completion_tokens"},
			Conversation: &Conversation{Turns: 4, ThinkTime: 2 * time.Second, History: "full",
				// max defaults to ⌈4·64⌉ = 256.
				PromptTokens: Fixed(64), OutputTokens: Distribution{Mean: 64, Stdev: 16, Min: 1, Max: 256}},
		},
		Schedule: Schedule{Strategy: "concurrent", Streams: 4, Rampup: 10 * time.Second, ErrorBackoff: 5 * time.Second, MaxConcurrency: 4, MaxQueue: ptr(4)},
	}
	fullReplay = Target{
		Name: "replay", BaseURL: "http://127.0.0.1:8000/v1", Model: "qwen2.5-0.5b", Backend: BackendHTTP, API: "chat",
		Stream: ptr(true), Provider: "openai", Timeout: time.Minute, Auth: Auth{Header: "Authorization"},
		Readiness: Readiness{Path: "models", Timeout: 5 * time.Second, Interval: 2 * time.Second, StartupTimeout: 10 * time.Minute},
		Workload: Workload{
			PromptTokens: Fixed(128), OutputTokens: Fixed(64),
			MaxTokensFields: []string{"max_tokens", "max_completion_tokens"},
		},
		Schedule: Schedule{Strategy: "trace", MaxConcurrency: 4, MaxQueue: ptr(4),
			Trace: Trace{File: "/etc/llmprober/trace.csv", Format: "azure_csv", TimeScale: 2, Loop: true}},
	}
)
