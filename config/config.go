// Package config is llmprober's configuration: the YAML schema, its defaults,
// the environment overlay, and strict validation whose errors name the field
// path (and the file and line where the YAML decoder gives them).
package config

import "time"

// Config is the whole configuration of one llmprober process.
type Config struct {
	// ListenAddress is where the HTTP server listens (landing page, /metrics,
	// health endpoints). Default "127.0.0.1:9477".
	ListenAddress string `yaml:"listen_address"`
	// LogLevel is one of debug, info, warn, error. Default info.
	LogLevel string `yaml:"log_level"`
	// Targets are the endpoints to probe; at least one, names unique.
	Targets []Target `yaml:"targets"`
	// Windows are the rolling window lengths, each at least 1s and
	// distinct, at most LimitWindows of them. Default 1m, 5m, 1h.
	Windows []time.Duration `yaml:"windows"`
	// Confidence is the level of the confidence intervals, in (0, 1).
	// Default 0.95; nil after ApplyDefaults (null in YAML) turns them off.
	Confidence *float64 `yaml:"confidence"`
	// Warmup is excluded from every window after a target starts probing;
	// >= 0. Default 0s.
	Warmup time.Duration `yaml:"warmup"`
	// WindowSampleCap is how many records per target the windows keep
	// exactly before sampling. Default 100000.
	WindowSampleCap int `yaml:"window_sample_cap"`
	// WindowGauges selects the window figures exported as gauges. Default
	// DefaultWindowGauges.
	WindowGauges WindowGauges `yaml:"window_gauges"`
	// SeriesLimit bounds the series the configuration may export (every
	// instrument's worst case, without the Go and process collectors):
	// check and run refuse a configuration above it. Default
	// DefaultSeriesLimit.
	SeriesLimit int `yaml:"series_limit"`

	// src says where each setting came from (file and line, or the
	// environment variable or flag); nil for a Config built in code.
	src *source
}

// Target is one endpoint to probe.
type Target struct {
	// Name identifies the target in metrics and the API: 1–64 characters of
	// [A-Za-z0-9_.-]; required.
	Name string `yaml:"name"`
	// BaseURL is the OpenAI-compatible base URL including its version path,
	// for example "http://127.0.0.1:8000/v1"; http or https; no credentials. Required.
	BaseURL string `yaml:"base_url"`
	// Model is the model name sent in each request. Required.
	Model string `yaml:"model"`
	// Backend is how requests are sent: "openai_http" (chat and completions
	// over HTTP, the default) or "openai_websocket" (realtime streaming
	// transcription over a WebSocket; see Realtime).
	Backend string `yaml:"backend"`
	// API is "chat" (/chat/completions) or "completions" (/completions).
	// Default chat; with backend openai_websocket it is "realtime" and
	// cannot be set.
	API string `yaml:"api"`
	// Stream requests a streamed (SSE) response. Default true.
	Stream *bool `yaml:"stream"`
	// Provider is the gen_ai.provider.name attribute. Default "openai".
	Provider string `yaml:"provider"`
	// Timeout bounds each request, from request start to the last byte. Default 60s.
	Timeout time.Duration `yaml:"timeout"`
	// Headers are extra request headers. Authorization and other credential
	// headers are rejected here: use Auth.
	Headers map[string]string `yaml:"headers"`
	// Tag, when set, is sent as the X-LLMProber-Tag header so operators can
	// filter synthetic traffic.
	Tag string `yaml:"tag"`
	// Auth says where the API key comes from.
	Auth Auth `yaml:"auth"`
	// TLS configures HTTPS.
	TLS TLS `yaml:"tls"`
	// Readiness is the start-up gate.
	Readiness Readiness `yaml:"readiness"`
	// Workload says what each request asks for.
	Workload Workload `yaml:"workload"`
	// Schedule says when requests are sent.
	Schedule Schedule `yaml:"schedule"`
	// Realtime configures backend openai_websocket; nil (and not allowed)
	// with openai_http.
	Realtime *Realtime `yaml:"realtime"`
	// Objectives are the target's SLO objective sets, at most
	// LimitObjectives; none by default.
	Objectives []Objective `yaml:"objectives"`

	// assets are the referenced files Check decoded; nil before Check.
	assets *Assets
}

// Auth names where a target's API key comes from; at most one of the two. An
// inline key is not accepted.
type Auth struct {
	// APIKeyEnv is the name of an environment variable holding the key.
	APIKeyEnv string `yaml:"api_key_env"`
	// APIKeyFile is a file holding the key (surrounding white space is trimmed);
	// read at start and on reload. A relative name is taken relative to the
	// configuration file's directory.
	APIKeyFile string `yaml:"api_key_file"`
	// Header is the header that carries the key. Default "Authorization",
	// whose value is "Bearer <key>"; any other header carries the bare key.
	Header string `yaml:"header"`
}

// TLS configures HTTPS to a target. System roots are used by default. A
// relative file name is taken relative to the configuration file's
// directory.
type TLS struct {
	// CAFile is a PEM bundle of extra root certificates.
	CAFile string `yaml:"ca_file"`
	// CertFile and KeyFile are a client certificate and key (both or neither).
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
	// ServerName overrides the name checked in the server's certificate.
	ServerName string `yaml:"server_name"`
	// InsecureSkipVerify turns off certificate verification; only when spelled out.
	InsecureSkipVerify bool `yaml:"insecure_skip_verify"`
}

// Readiness is a target's start-up gate: probing begins once the endpoint
// answers its readiness check with a 2xx status.
type Readiness struct {
	// Path is requested with GET; an absolute path ("/health") is resolved
	// against the base URL's origin, a relative one ("models") against the base
	// URL. Default "models" (that is, <base_url>/models). "none" disables the gate.
	Path string `yaml:"path"`
	// Timeout bounds each check. Default 5s.
	Timeout time.Duration `yaml:"timeout"`
	// Interval is the time between checks. Default 2s.
	Interval time.Duration `yaml:"interval"`
	// StartupTimeout is how long the target may take to become ready before it
	// is reported as failed (checks go on). Default 10m.
	StartupTimeout time.Duration `yaml:"startup_timeout"`
	// FollowRedirects lets the check follow up to 10 redirects to its 2xx
	// answer; a redirect that leaves the check's origin (another host or
	// port, or https to http) carries no credential header. Default false:
	// a redirect answers "not ready".
	FollowRedirects bool `yaml:"follow_redirects"`
}

// Workload says what each request asks for.
type Workload struct {
	// PromptTokens is the synthetic prompt length in tokens (approximate: one
	// word per token). Default 128.
	PromptTokens Distribution `yaml:"prompt_tokens"`
	// OutputTokens is the output length to force. Default 64.
	OutputTokens Distribution `yaml:"output_tokens"`
	// MaxTokensFields are the request fields that carry the output length. Each
	// is max_tokens or max_completion_tokens. Default: both for chat,
	// max_tokens for completions.
	MaxTokensFields []string `yaml:"max_tokens_fields"`
	// IgnoreEOS sends "ignore_eos": true so the server generates exactly the
	// forced length (vLLM, SGLang, llama.cpp accept it; OpenAI rejects it).
	// Default false.
	IgnoreEOS bool `yaml:"ignore_eos"`
	// Seed makes the workload's random draws reproducible; 0 picks a random seed.
	Seed int64 `yaml:"seed"`
	// Conversation, when set, makes every request a turn of a multi-turn
	// conversation; nil means single-turn requests.
	Conversation *Conversation `yaml:"conversation"`
}

// Distribution is a token count: either a fixed number (YAML scalar "128") or
// a normal distribution truncated to [Min, Max] (YAML mapping with mean,
// stdev, min, max). Min defaults to 1 and Max to 4·Mean when unset.
type Distribution struct {
	Mean  float64 `yaml:"mean"`
	Stdev float64 `yaml:"stdev"`
	Min   int     `yaml:"min"`
	Max   int     `yaml:"max"`
}

// Schedule says when requests are sent.
type Schedule struct {
	// Strategy is the load strategy: synchronous, concurrent, throughput,
	// constant, poisson or trace. Default "constant".
	Strategy string `yaml:"strategy"`
	// Rate is the request rate in requests per second of the constant and
	// poisson strategies. Default 0.2 (one request every 5 s): a good guest
	// sends little unless told otherwise.
	Rate float64 `yaml:"rate"`
	// Streams is the number of streams of the concurrent strategy; required by it.
	Streams int `yaml:"streams"`
	// Rampup spreads the start: the constant rate rises linearly from 0 over
	// it; the concurrent streams start evenly spread over it. Default 0.
	Rampup time.Duration `yaml:"rampup"`
	// Seed makes the poisson arrivals reproducible; 0 picks a random seed.
	Seed int64 `yaml:"seed"`
	// Trace is the trace the trace strategy replays.
	Trace Trace `yaml:"trace"`
	// ErrorBackoff is how long a stream of synchronous, concurrent or
	// throughput pauses after an errored request before its next one; 0
	// sends it at once. Default 1s for those strategies; unused by the others.
	ErrorBackoff time.Duration `yaml:"error_backoff"`
	// MaxConcurrency caps requests in flight; a due request waits for a slot and
	// the wait is its dispatch delay. Default 4.
	MaxConcurrency int `yaml:"max_concurrency"`
	// MaxQueue bounds how many due requests may wait for a slot, to be sent
	// late, oldest first; beyond it a due request is dropped and counted.
	// Default 4.
	MaxQueue *int `yaml:"max_queue"`
}
