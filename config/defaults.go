package config

import (
	"strconv"
	"time"

	"github.com/llmprober/llmprober/probe/api"
)

// Values of Target.API with backend openai_http, from the one list of
// API kinds (package probe/api).
const (
	// APIChat is the chat completions API (/chat/completions).
	APIChat = api.Chat
	// APICompletions is the text completions API (/completions).
	APICompletions = api.Completions
)

// Values of Workload.MaxTokensFields.
const (
	// FieldMaxTokens is the "max_tokens" request field.
	FieldMaxTokens = "max_tokens"
	// FieldMaxCompletionTokens is the "max_completion_tokens" request field.
	FieldMaxCompletionTokens = "max_completion_tokens"
)

// StrategyConstant is the constant-rate (open-loop) schedule strategy.
const StrategyConstant = "constant"

// ReadinessNone as Readiness.Path disables the start-up gate.
const ReadinessNone = "none"

// Defaults applied by ApplyDefaults to settings left unset.
const (
	// DefaultListenAddress is Config.ListenAddress's default.
	DefaultListenAddress = "127.0.0.1:9477"
	// DefaultLogLevel is Config.LogLevel's default.
	DefaultLogLevel = "info"
	// DefaultProvider is Target.Provider's default.
	DefaultProvider = "openai"
	// DefaultTimeout is Target.Timeout's default.
	DefaultTimeout = 60 * time.Second
	// DefaultAuthHeader is Auth.Header's default.
	DefaultAuthHeader = "Authorization"
	// DefaultReadinessPath is Readiness.Path's default.
	DefaultReadinessPath = "models"
	// DefaultReadinessTimeout is Readiness.Timeout's default.
	DefaultReadinessTimeout = 5 * time.Second
	// DefaultReadinessInterval is Readiness.Interval's default.
	DefaultReadinessInterval = 2 * time.Second
	// DefaultStartupTimeout is Readiness.StartupTimeout's default.
	DefaultStartupTimeout = 10 * time.Minute
	// DefaultPromptTokens is Workload.PromptTokens' default, in tokens.
	DefaultPromptTokens = 128
	// DefaultOutputTokens is Workload.OutputTokens' default, in tokens.
	DefaultOutputTokens = 64
	// DefaultRate is Schedule.Rate's default, in requests per second.
	DefaultRate = 0.2
	// DefaultMaxConcurrency is Schedule.MaxConcurrency's default.
	DefaultMaxConcurrency = 4
	// DefaultMaxQueue is Schedule.MaxQueue's default.
	DefaultMaxQueue = 4
)

// ApplyDefaults fills every unset setting with its default. A setting given
// explicitly in the file or the environment keeps its value even when zero
// (so "rate: 0" is reported by Validate rather than replaced); in a Config
// built in code, zero means unset. Calling it twice changes nothing.
func (c *Config) ApplyDefaults() {
	if c.ListenAddress == "" {
		c.ListenAddress = DefaultListenAddress
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	for i := range c.Targets {
		c.Targets[i].applyDefaults(targetPath(i), c.src.isSet)
	}
	c.applyWindowDefaults()
}

// targetPath is the path of the i-th target.
func targetPath(i int) string {
	return "targets[" + strconv.Itoa(i) + "]"
}

// applyDefaults fills the target's unset settings; path locates it for set.
func (t *Target) applyDefaults(path string, set func(string) bool) {
	t.applyBackendDefaults(path, set)
	if t.API == "" {
		t.API = APIChat
	}
	if t.Stream == nil {
		stream := true
		t.Stream = &stream
	}
	if t.Provider == "" {
		t.Provider = DefaultProvider
	}
	defaultDuration(&t.Timeout, DefaultTimeout, path+".timeout", set)
	if t.Auth.Header == "" {
		t.Auth.Header = DefaultAuthHeader
	}
	t.Readiness.applyDefaults(path+".readiness", set)
	t.Workload.applyDefaults(t.API, path+".workload", set)
	t.Schedule.applyDefaults(path+".schedule", set)
	t.applyObjectiveDefaults(path, set)
}

// applyDefaults fills the readiness gate's unset settings.
func (r *Readiness) applyDefaults(path string, set func(string) bool) {
	if r.Path == "" {
		r.Path = DefaultReadinessPath
	}
	defaultDuration(&r.Timeout, DefaultReadinessTimeout, path+".timeout", set)
	defaultDuration(&r.Interval, DefaultReadinessInterval, path+".interval", set)
	defaultDuration(&r.StartupTimeout, DefaultStartupTimeout, path+".startup_timeout", set)
}

// applyDefaults fills the workload's unset settings; the default request
// fields depend on the API.
func (w *Workload) applyDefaults(api, path string, set func(string) bool) {
	w.PromptTokens.applyDefaults(DefaultPromptTokens, path+".prompt_tokens", set)
	w.OutputTokens.applyDefaults(DefaultOutputTokens, path+".output_tokens", set)
	if w.Conversation != nil {
		w.Conversation.applyDefaults(path+".conversation", set)
	}
	if len(w.MaxTokensFields) == 0 && !set(path+".max_tokens_fields") {
		if api == APICompletions {
			w.MaxTokensFields = []string{FieldMaxTokens}
		} else {
			w.MaxTokensFields = []string{FieldMaxTokens, FieldMaxCompletionTokens}
		}
	}
}

// applyDefaults fills the schedule's unset settings.
func (s *Schedule) applyDefaults(path string, set func(string) bool) {
	if s.Strategy == "" {
		s.Strategy = StrategyConstant
	}
	if s.Rate == 0 && !set(path+".rate") && usesRate(s.Strategy) {
		s.Rate = DefaultRate
	}
	if s.Strategy == StrategyTrace {
		s.Trace.applyDefaults(path+".trace", set)
	}
	if closedLoop(s.Strategy) {
		defaultDuration(&s.ErrorBackoff, DefaultErrorBackoff, path+".error_backoff", set)
	}
	if s.MaxConcurrency == 0 && !set(path+".max_concurrency") {
		s.MaxConcurrency = DefaultMaxConcurrency
	}
	if s.MaxQueue == nil {
		q := DefaultMaxQueue
		s.MaxQueue = &q
	}
}

// defaultDuration sets *d to def when it is zero and was not set explicitly.
func defaultDuration(d *time.Duration, def time.Duration, path string, set func(string) bool) {
	if *d == 0 && !set(path) {
		*d = def
	}
}
