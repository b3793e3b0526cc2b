// Package openai is the backend for OpenAI-compatible HTTP servers (vLLM,
// SGLang, llama.cpp, TGI, OpenAI itself): it sends one chat or completions
// request, reads the response (streamed as Server-Sent Events or whole), and
// measures it into a probe.Record.
//
// In a stream, every data event except [DONE] and heartbeats (a payload
// that is empty, blank or itself a comment) is a chunk, timed when it has
// been parsed; events with a type other than "message" are ignored, except
// "error". The stream ends successfully at [DONE] (the record's end), or at
// a clean end of the body once a finish reason was seen. After [DONE], up to
// 64 KiB of what follows is read and discarded so that the connection can be
// reused. Token counts come from the last usage report (probe.Usage: an
// inconsistent one is not taken), else (streams only) from the number of
// token events. A stream is read up to MaxEvents events and MaxStreamBytes
// bytes; the record's memory does not grow with them (probe.Gaps).
//
// Outcomes: a status ≥ 400 is http_429, http_4xx or http_5xx; any other
// non-2xx status (redirects are never followed), a stream body that is
// JSON (the server ignored stream: true) or neither SSE nor of type
// text/event-stream, a malformed or truncated stream, a stream past its
// limits and an undecodable body are protocol errors; an error inside a
// 200 stream (an "error" event or field, a chunk with an "error" member
// that is set (probe.Truthy) at its top level or in a choice, of type or
// object "error", with a finish_reason "error", or a bare report without
// choices: a "message" string or a "detail") is stream_error (inside a
// whole 200 body it is a protocol error); the server's error code is kept
// (probe.ParseServerError). A cancelled parent context makes the request
// incomplete; the backend's own timeout makes it errored with timeout; a
// transport failure for want of the prober's own resources (too many open
// files, say: probe.ProberFailure) makes it incomplete with prober; a
// transport failure that says the response broke HTTP (headers past the
// client's MaxResponseHeaderBytes, a malformed status line, header or
// chunked body, an HTTP/2 protocol error) is a protocol error; other
// transport failures are connection errors.
//
// Every byte a server sends is charged to a bound: every request says
// Accept-Encoding: identity, so no transport asks for gzip or inflates an
// answer, and a response in any other Content-Encoding is a protocol
// error whose body is not read; a stream is read by package sse (each
// event within MaxEventBytes, names and per-field overhead included), a
// whole response up to MaxBodyBytes, an error body up to 64 KiB; a chunk
// or whole response with more than probe.MaxResponseItems choices, or a
// delta with more tool calls, is a protocol error naming the bound.
package openai

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/api"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/sse"
)

// API kinds of this backend, from the one list (package probe/api).
const (
	apiChat        = api.Chat
	apiCompletions = api.Completions
)

// Defaults for the size limits of a Config.
const (
	// DefaultMaxEventBytes is the default limit of one stream event: 1 MiB.
	DefaultMaxEventBytes = sse.DefaultMaxEventBytes
	// DefaultMaxBodyBytes is the default limit of a whole non-streamed response: 16 MiB.
	DefaultMaxBodyBytes = 16 << 20
	// DefaultMaxStreamBytes is the default limit of a streamed response: 1 GiB.
	DefaultMaxStreamBytes = probe.MaxResponseBytes
	// DefaultMaxEvents is the default limit of the events of one stream
	// (heartbeats and ignored events included).
	DefaultMaxEvents = probe.MaxResponseEvents
)

// Config configures a Backend.
type Config struct {
	// Target is the target's name, copied into every record.
	Target string
	// BaseURL is the base URL including its version path, for example
	// "http://127.0.0.1:8000/v1"; http or https. Required.
	BaseURL string
	// API is "chat" (POST {BaseURL}/chat/completions) or "completions"
	// (POST {BaseURL}/completions); empty means chat.
	API string
	// Model is sent as "model"; omitted from the body when empty.
	Model string
	// Stream asks for a streamed (SSE) response with usage included.
	Stream bool
	// Timeout bounds each request, from request start until the response is
	// fully read, measured on Clock; zero means no limit of its own.
	Timeout time.Duration
	// Header holds the headers sent with every request (User-Agent, tag,
	// credentials); Content-Type and Accept are set by the backend. A "Host"
	// entry sets the request's host.
	Header http.Header
	// Secrets are values (API keys) replaced by "REDACTED" in any error text.
	Secrets []string
	// MaxTokensFields are the body fields that carry Request.MaxOutputTokens,
	// each "max_tokens" or "max_completion_tokens". When empty: both for chat,
	// max_tokens for completions.
	MaxTokensFields []string
	// IgnoreEOS sends "ignore_eos": true.
	IgnoreEOS bool
	// Client sends the requests. Required. The backend uses a copy of it that
	// does not follow redirects; the Transport (and its connection pool) is shared.
	Client *http.Client
	// Clock reads every timestamp and runs the timeout; nil means clock.Real().
	Clock clock.Clock
	// MaxEventBytes bounds one stream event in bytes; zero means DefaultMaxEventBytes.
	MaxEventBytes int
	// MaxBodyBytes bounds a non-streamed response body in bytes; zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxStreamBytes bounds a streamed response body in bytes; zero means
	// DefaultMaxStreamBytes. A longer stream is a protocol error.
	MaxStreamBytes int64
	// MaxEvents bounds the events of one stream; zero means
	// DefaultMaxEvents. One more is a protocol error.
	MaxEvents int
}

// Backend sends requests to one OpenAI-compatible endpoint. It implements
// probe.Backend and is safe for concurrent use.
type Backend struct {
	cfg    Config
	url    string
	chat   bool
	header http.Header // every request's headers, Content-Type and Accept included
	host   string      // the request's host, from a "Host" header
	tmpl   *bodyTemplate
	redact probe.Redactor
	client *http.Client
}

var _ probe.Backend = (*Backend)(nil)

// New checks cfg, fills its defaults and returns a Backend.
func New(cfg Config) (*Backend, error) {
	if cfg.Client == nil {
		return nil, errors.New("could not create backend: an HTTP client is required")
	}
	if err := checkConfig(&cfg); err != nil {
		return nil, fmt.Errorf("could not create backend: %w", err)
	}
	path := "/chat/completions"
	if cfg.API == apiCompletions {
		path = "/completions"
	}
	client := *cfg.Client
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	b := &Backend{
		cfg:    cfg,
		url:    strings.TrimRight(cfg.BaseURL, "/") + path,
		chat:   cfg.API == apiChat,
		header: requestHeader(cfg),
		host:   cfg.Header.Get("Host"),
		redact: probe.NewRedactor(cfg.Secrets),
		client: &client,
	}
	tmpl, err := newBodyTemplate(&cfg)
	if err != nil {
		return nil, fmt.Errorf("could not create backend: %w", err)
	}
	b.tmpl = tmpl
	return b, nil
}

// checkConfig rejects invalid settings and fills defaults.
func checkConfig(cfg *Config) error {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return fmt.Errorf("could not parse base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("base URL %q is not an absolute http or https URL", cfg.BaseURL)
	}
	switch cfg.API {
	case "":
		cfg.API = apiChat
	case apiChat, apiCompletions:
	default:
		return fmt.Errorf("unknown API %q (want chat or completions)", cfg.API)
	}
	for _, f := range cfg.MaxTokensFields {
		if f != "max_tokens" && f != "max_completion_tokens" {
			return fmt.Errorf("unknown max tokens field %q", f)
		}
	}
	if len(cfg.MaxTokensFields) == 0 {
		cfg.MaxTokensFields = []string{"max_tokens"}
		if cfg.API == apiChat {
			cfg.MaxTokensFields = append(cfg.MaxTokensFields, "max_completion_tokens")
		}
	}
	if cfg.Timeout < 0 || cfg.MaxEventBytes < 0 || cfg.MaxBodyBytes < 0 || cfg.MaxStreamBytes < 0 || cfg.MaxEvents < 0 {
		return errors.New("timeout and size limits must not be negative")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.MaxEventBytes == 0 {
		cfg.MaxEventBytes = DefaultMaxEventBytes
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxStreamBytes == 0 {
		cfg.MaxStreamBytes = DefaultMaxStreamBytes
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = DefaultMaxEvents
	}
	return nil
}
