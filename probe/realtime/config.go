// Package realtime is the backend for servers with an OpenAI-Realtime-style
// WebSocket endpoint for streaming transcription, such as vLLM's
// /v1/realtime: it streams audio up and reads the transcript down on one
// connection, and measures the exchange into a probe.Record, including the
// send times of the audio packets and the receive times of the tokens from
// which the round-trip metrics are derived.
//
// One request: connect (RequestStart is taken just before the handshake);
// read session.created; send session.update with the model and an
// input_audio_buffer.commit (final false) that starts transcribing; send
// the audio as input_audio_buffer.append events, each chunk at its time
// when paced in real time or back to back; send input_audio_buffer.commit
// with final true; read transcription.delta events (each non-empty delta
// is one token event, timed when it has been parsed) until
// transcription.done, whose usage gives the token counts (else the deltas
// are counted; probe.Usage). A done event whose transcript is not empty
// after no non-empty delta is itself the one token event. Record.Sent
// summarizes the send times of the appends, Record.Received the receive
// times of the token events (probe.Instants), in constant memory; at most
// MaxEvents server messages of MaxBytes bytes together are read, each of
// at most MaxMessageBytes, and at most 128 KiB until the handshake is over
// (a proxy's answer, TLS and the upgrade's status line and headers),
// since the WebSocket dialer reads the upgrade's headers with no bound of
// its own. The event names, with the OpenAI spellings accepted, are in
// protocol.go.
//
// Outcomes: a refused handshake is http_429, http_4xx or http_5xx by its
// status (any other non-101 answer, or one that is not HTTP, is a protocol
// error, and so is a handshake answer past its bound); a connection that
// fails or is cut before transcription.done is a connection error, one
// closed cleanly before it a protocol error, as are
// malformed events, binary messages, more than MaxUnknownEvents events of
// unknown types, more than MaxEvents messages or MaxBytes bytes and a
// transcription.done before the final commit was sent; an error event,
// OpenAI's transcription failed, and an event of any other type with an
// "error" member that is set (probe.Truthy) are stream_error, the code
// kept.
// The backend's timeout makes the request errored with timeout, a
// cancelled parent context incomplete; either closes the connection at
// once, in the handshake too.
package realtime

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/api"
	"github.com/llmprober/llmprober/probe/clock"
)

// API is the API kind of the records of this backend, from the one list
// (package probe/api).
const API = api.Realtime

// Pacing says when the audio chunks are sent.
type Pacing string

// The pacings.
const (
	// PacingRealtime sends chunk i at i × ChunkDuration after the first, as
	// a live microphone would.
	PacingRealtime Pacing = "realtime"
	// PacingFast sends every chunk as fast as the connection takes them.
	PacingFast Pacing = "fast"
)

// Defaults of a Config.
const (
	// DefaultPath is the endpoint's path, resolved against the base URL's origin.
	DefaultPath = "/v1/realtime"
	// DefaultChunkDuration is the audio carried by one append event.
	DefaultChunkDuration = 100 * time.Millisecond
	// DefaultMaxUnknownEvents is how many events of unknown types are
	// ignored before the request is errored.
	DefaultMaxUnknownEvents = 100
	// DefaultMaxMessageBytes bounds one server message: 1 MiB.
	DefaultMaxMessageBytes = 1 << 20
	// DefaultMaxEvents bounds the server messages of one request.
	DefaultMaxEvents = probe.MaxResponseEvents
	// DefaultMaxBytes bounds the server messages of one request together: 1 GiB.
	DefaultMaxBytes = probe.MaxResponseBytes
)

// Config configures a Backend.
type Config struct {
	// Target is the target's name, copied into every record.
	Target string
	// BaseURL is the target's http or https base URL ("http://host:8000/v1");
	// the endpoint is Path on its origin, with ws or wss. Required.
	BaseURL string
	// Path is the endpoint's absolute path; empty means DefaultPath.
	Path string
	// Model is sent in session.update.
	Model string
	// Timeout bounds each request, from request start until
	// transcription.done, measured on Clock; zero means no limit of its own.
	Timeout time.Duration
	// Header holds the headers of the handshake (User-Agent, tag, credentials).
	Header http.Header
	// Secrets are values (API keys) replaced by "REDACTED" in any error text.
	Secrets []string
	// TLS configures wss connections; nil means the system roots.
	TLS *tls.Config
	// Audio is the audio to send, PCM16 little-endian mono at 16 kHz
	// (LoadWAV, Tone). Required.
	Audio []byte
	// ChunkDuration is the audio per append event; zero means DefaultChunkDuration.
	ChunkDuration time.Duration
	// Pacing is PacingRealtime (the default when empty) or PacingFast.
	Pacing Pacing
	// MaxUnknownEvents bounds the events of unknown types ignored per
	// request; zero means DefaultMaxUnknownEvents.
	MaxUnknownEvents int
	// MaxMessageBytes bounds one server message; zero means DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// MaxEvents bounds the server messages read in one request; zero means
	// DefaultMaxEvents. One more is a protocol error.
	MaxEvents int
	// MaxBytes bounds the bytes of the server messages read in one request
	// together; zero means DefaultMaxBytes. More is a protocol error.
	MaxBytes int64
	// Clock reads every timestamp, paces the audio and runs the timeout;
	// nil means clock.Real().
	Clock clock.Clock
}

// Backend probes one realtime endpoint. It implements probe.Backend and is
// safe for concurrent use; each request opens its own connection.
type Backend struct {
	cfg    Config
	url    string
	chunks [][]byte
	redact probe.Redactor
}

var _ probe.Backend = (*Backend)(nil)

// New checks cfg, fills its defaults and returns a Backend.
func New(cfg Config) (*Backend, error) {
	u, err := endpoint(cfg.BaseURL, cfg.Path)
	if err != nil {
		return nil, fmt.Errorf("could not create realtime backend: %w", err)
	}
	if err := cfg.defaults(); err != nil {
		return nil, fmt.Errorf("could not create realtime backend: %w", err)
	}
	return &Backend{
		cfg: cfg, url: u, chunks: Chunks(cfg.Audio, cfg.ChunkDuration),
		redact: probe.NewRedactor(cfg.Secrets),
	}, nil
}

// defaults rejects invalid settings and fills the defaults.
func (cfg *Config) defaults() error {
	switch {
	case len(cfg.Audio) < bytesPerSample:
		return errors.New("no audio to send")
	case cfg.Timeout < 0 || cfg.ChunkDuration < 0 || cfg.MaxUnknownEvents < 0 || cfg.MaxMessageBytes < 0 ||
		cfg.MaxEvents < 0 || cfg.MaxBytes < 0:
		return errors.New("timeout, chunk duration and limits must not be negative")
	}
	switch cfg.Pacing {
	case "":
		cfg.Pacing = PacingRealtime
	case PacingRealtime, PacingFast:
	default:
		return fmt.Errorf("unknown pacing %q (want realtime or fast)", cfg.Pacing)
	}
	if cfg.ChunkDuration == 0 {
		cfg.ChunkDuration = DefaultChunkDuration
	}
	if cfg.MaxUnknownEvents == 0 {
		cfg.MaxUnknownEvents = DefaultMaxUnknownEvents
	}
	if cfg.MaxMessageBytes == 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = DefaultMaxEvents
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	cfg.Header = cfg.Header.Clone()
	return nil
}

// endpoint returns the WebSocket URL of path on base's origin.
func endpoint(base, path string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("could not parse base URL: %w", err)
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", errors.New("base URL is not an absolute http or https URL")
	}
	if u.Host == "" {
		return "", errors.New("base URL has no host")
	}
	if path == "" {
		path = DefaultPath
	}
	if !strings.HasPrefix(path, "/") {
		return "", fmt.Errorf("path %q is not absolute", path)
	}
	u.Path, u.RawPath, u.RawQuery, u.Fragment, u.User = path, "", "", "", nil
	return u.String(), nil
}
