package wiring

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/api"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/openai"
	"github.com/llmprober/llmprober/probe/realtime"
)

// tagHeader carries a target's tag so operators can filter synthetic traffic.
const tagHeader = "X-LLMProber-Tag"

// idleConnTimeout closes a kept-alive connection after this long unused. It
// is shorter than the keep-alive timeouts of common servers (5 s for uvicorn,
// as in vLLM, and for llama.cpp), so llmprober never sends a request on a
// connection the server is closing at that moment, which would fail with a
// connection error that no user of a retrying client library would see.
const idleConnTimeout = 2 * time.Second

// Wired is one target's prober and what the exporter needs to know about it.
type Wired struct {
	Prober *probe.Prober
	Info   exporter.Target
	Client *http.Client
}

// WireTarget builds the HTTP client, backend, workload, strategy and start-up
// gate of one configured target; the prober and the backend share clk.
func WireTarget(t *config.Target, clk clock.Clock, obs probe.Observer, logs *LogObserver, logger *slog.Logger) (*Wired, error) {
	return WireLimitedTarget(t, clk, obs, logs, logger, 0)
}

// WireLimitedTarget is WireTarget with the strategy limited to limit
// requests (probe.Limited) when limit > 0: a finite benchmark's request
// limit.
func WireLimitedTarget(t *config.Target, clk clock.Clock, obs probe.Observer, logs *LogObserver, logger *slog.Logger,
	limit uint64) (*Wired, error) {
	client, err := newClient(t)
	if err != nil {
		return nil, err
	}
	header, secrets, err := requestHeader(t)
	if err != nil {
		return nil, err
	}
	backend, err := newBackend(t, client, header, secrets, clk)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	strategy, workload, err := newSchedule(t)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	if limit > 0 {
		strategy = &probe.Limited{Strategy: strategy, Max: limit}
	}
	p, err := probe.NewProber(probe.ProberConfig{
		Target: t.Name, Strategy: strategy, Backend: backend, Observer: obs, Logger: logger, Clock: clk,
		Workload:       workload,
		MaxConcurrency: t.Schedule.MaxConcurrency, MaxQueue: *t.Schedule.MaxQueue,
		Gate: newGate(t, client, header, secrets, func(err error) { logs.readinessFailed(t.Name, err) }),
	})
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	return &Wired{Prober: p, Info: ExporterTarget(t), Client: client}, nil
}

// backendConstructor builds a target's backend from its HTTP client, the
// headers of every request, the secrets to redact and the clock.
type backendConstructor func(t *config.Target, client *http.Client, header http.Header, secrets []string, clk clock.Clock) (probe.Backend, error)

// backends maps every backend of the one list (api.Backends, which
// config.Backends is) to its constructor.
var backends = map[string]backendConstructor{
	api.HTTP:      newHTTPBackend,
	api.WebSocket: newRealtimeBackend,
}

// newBackend returns the backend t names.
func newBackend(t *config.Target, client *http.Client, header http.Header, secrets []string, clk clock.Clock) (probe.Backend, error) {
	build, ok := backends[t.Backend]
	if !ok {
		return nil, fmt.Errorf("backend %q: not known", t.Backend)
	}
	return build(t, client, header, secrets, clk)
}

// newHTTPBackend is the OpenAI-compatible HTTP backend (chat and
// completions, SSE streams).
func newHTTPBackend(t *config.Target, client *http.Client, header http.Header, secrets []string, clk clock.Clock) (probe.Backend, error) {
	return openai.New(openai.Config{
		Target: t.Name, BaseURL: t.BaseURL, API: t.API, Model: t.Model, Stream: *t.Stream,
		Timeout: t.Timeout, Header: header, Secrets: secrets,
		MaxTokensFields: t.Workload.MaxTokensFields, IgnoreEOS: t.Workload.IgnoreEOS, Client: client, Clock: clk,
	})
}

// newRealtimeBackend is the realtime WebSocket backend (streaming
// transcription of the target's audio).
func newRealtimeBackend(t *config.Target, _ *http.Client, header http.Header, secrets []string, clk clock.Clock) (probe.Backend, error) {
	assets, err := t.Assets()
	if err != nil {
		return nil, err
	}
	tlsConfig, err := t.TLSConfig()
	if err != nil {
		return nil, err
	}
	return realtime.New(realtime.Config{
		Target: t.Name, BaseURL: t.BaseURL, Path: t.Realtime.Path, Model: t.Model, Timeout: t.Timeout,
		Header: header, Secrets: secrets, TLS: tlsConfig, Audio: assets.Audio,
		ChunkDuration: t.Realtime.ChunkDuration, Pacing: realtime.Pacing(t.Realtime.Pacing), Clock: clk,
	})
}

// newClient returns the target's own HTTP client: its TLS settings, a pool
// sized to its concurrency, no transparent compression (it would delay
// streamed chunks), response headers of at most probe.MaxResponseHeaderBytes,
// the proxy from the standard environment variables, and no redirect ever
// followed (a user of the client that may follow them sets its own policy,
// see redirectPolicy).
func newClient(t *config.Target) (*http.Client, error) {
	tlsConfig, err := t.TLSConfig()
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: t.Schedule.MaxConcurrency + 1,
		IdleConnTimeout:     idleConnTimeout,
		DisableCompression:  true,
		ForceAttemptHTTP2:   true,
		// Covers the status line too: a 500 KB reason phrase is refused.
		MaxResponseHeaderBytes: probe.MaxResponseHeaderBytes,
	}
	return &http.Client{Transport: transport, CheckRedirect: redirectPolicy(false, "")}, nil
}

// requestHeader returns the headers of every request to t (User-Agent, tag,
// extra headers, credentials) and the secret values to redact: the key,
// and the value of any header whose name looks like a credential's
// (config.CredentialHeader), which a validated configuration rejects but
// one built in code may hold.
func requestHeader(t *config.Target) (http.Header, []string, error) {
	h := http.Header{}
	h.Set("User-Agent", "llmprober/"+buildinfo.Version())
	var secrets []string
	for k, v := range t.Headers {
		h.Set(k, v)
		if _, ok := config.CredentialHeader(k); ok {
			secrets = append(secrets, v)
		}
	}
	if t.Tag != "" {
		h.Set(tagHeader, t.Tag)
	}
	if t.Auth.APIKeyEnv == "" && t.Auth.APIKeyFile == "" {
		return h, secrets, nil
	}
	key, err := t.APIKey()
	if err != nil {
		return nil, nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	name := t.Auth.Header
	if strings.EqualFold(name, "Authorization") {
		h.Set(name, "Bearer "+key)
	} else {
		h.Set(name, key)
	}
	return h, append(secrets, key), nil
}

// ExporterTarget is what the exporter shows and labels of t.
func ExporterTarget(t *config.Target) exporter.Target {
	info := exporter.Target{Name: t.Name, Model: t.Model, API: t.API, Stream: *t.Stream, Provider: t.Provider,
		Objectives: t.SLOObjectives(), ClosedLoop: !t.Schedule.ArrivalSchedule(), Conversations: t.MayConverse()}
	if u, err := url.Parse(t.BaseURL); err == nil {
		info.ServerAddress = u.Hostname()
		info.ServerPort, _ = strconv.Atoi(u.Port())
		if info.ServerPort == 0 {
			info.ServerPort = map[string]int{"http": 80, "https": 443}[u.Scheme]
		}
	}
	return info
}
