package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe/api"
)

// Values of Target.Backend.
const (
	// BackendHTTP is the OpenAI-compatible HTTP backend (chat and completions, SSE streams).
	BackendHTTP = api.HTTP
	// BackendWebSocket is the realtime WebSocket backend (streaming transcription).
	BackendWebSocket = api.WebSocket
)

// APIRealtime is Target.API of a target with backend openai_websocket; it
// cannot be set in the file.
const APIRealtime = api.Realtime

// Values of Realtime.Pacing.
const (
	// PacingRealtime sends each audio chunk at its time, as a microphone would.
	PacingRealtime = "realtime"
	// PacingFast sends the audio chunks back to back.
	PacingFast = "fast"
)

// Defaults and bounds of the realtime settings.
const (
	// DefaultAudioDuration is Realtime.AudioDuration's default when no audio file is set.
	DefaultAudioDuration = 2 * time.Second
	// MinChunkDuration and LimitChunkDuration bound Realtime.ChunkDuration.
	MinChunkDuration   = 10 * time.Millisecond
	LimitChunkDuration = 10 * time.Second
)

// backends lists every backend a target may name, from the one list of
// backends (package probe/api).
var backends = api.Backends()

// Backends returns every backend a target may name, in order.
func Backends() []string { return slices.Clone(backends) }

// Realtime configures a target with backend openai_websocket: the endpoint,
// the audio it sends and how it paces it.
type Realtime struct {
	// Path is the endpoint's absolute path on the base URL's origin.
	// Default "/v1/realtime".
	Path string `yaml:"path"`
	// AudioFile is a WAV file of PCM16 mono 16 kHz audio to send with every
	// request; a relative name is taken relative to the configuration
	// file's directory. Excludes AudioDuration.
	AudioFile string `yaml:"audio_file"`
	// AudioDuration is the length of a generated tone sent instead of a
	// file; at most LimitAudioDuration. Default 2s without AudioFile.
	AudioDuration time.Duration `yaml:"audio_duration"`
	// ChunkDuration is the audio carried by each append event, between
	// MinChunkDuration and LimitChunkDuration. Default 100ms.
	ChunkDuration time.Duration `yaml:"chunk_duration"`
	// Pacing is realtime (each chunk at its time) or fast (back to back).
	// Default realtime.
	Pacing string `yaml:"pacing"`
}

// applyBackendDefaults fills the backend and, for openai_websocket, the api
// and realtime settings. It runs before the other target defaults.
func (t *Target) applyBackendDefaults(path string, set func(string) bool) {
	if t.Backend == "" {
		t.Backend = api.DefaultBackend()
	}
	if t.Backend != BackendWebSocket {
		return
	}
	if t.API == "" {
		t.API = APIRealtime
	}
	if t.Realtime == nil {
		t.Realtime = &Realtime{}
	}
	r, path := t.Realtime, path+".realtime"
	if r.Path == "" {
		r.Path = DefaultRealtimePath
	}
	if r.AudioFile == "" {
		defaultDuration(&r.AudioDuration, DefaultAudioDuration, path+".audio_duration", set)
	}
	defaultDuration(&r.ChunkDuration, DefaultChunkDuration, path+".chunk_duration", set)
	if r.Pacing == "" {
		r.Pacing = PacingRealtime
	}
}

// validateBackend records the problems of the backend choice and of the
// settings it does not use.
func (t *Target) validateBackend(col *collector, path string) {
	switch {
	case !slices.Contains(backends, t.Backend):
		col.add(path+".backend", "unknown backend %s (supported: %s)", quote(t.Backend), strings.Join(backends, ", "))
	case t.Backend == BackendHTTP && t.Realtime != nil:
		col.add(path+".realtime", "only used by backend %s", BackendWebSocket)
	case t.Backend == BackendWebSocket:
		if t.API != APIRealtime {
			col.add(path+".api", "not used by backend %s (it sends audio and reads a transcript)", BackendWebSocket)
		}
		t.validateCapabilities(col, path)
		t.Realtime.validate(col, path+".realtime", t.Timeout)
	default:
		t.validateCapabilities(col, path)
	}
}

// validateCapabilities records the settings that the API kinds of t's
// backend cannot honour, as their capabilities in package probe/api say:
// stream false where every response streams, a conversation where none
// is supported.
func (t *Target) validateCapabilities(col *collector, path string) {
	apis := api.Of(t.Backend)
	if len(apis) == 0 {
		return
	}
	k, _ := api.Lookup(apis[0])
	if k.AlwaysStreams && t.Stream != nil && !*t.Stream {
		col.add(path+".stream", "backend %s always streams", t.Backend)
	}
	if !k.Conversations && t.Workload.Conversation != nil {
		col.add(path+".workload.conversation", "not supported by backend %s", t.Backend)
	}
}

// validate records the realtime settings' problems; timeout is the
// target's request timeout.
func (r *Realtime) validate(col *collector, path string, timeout time.Duration) {
	if u, err := url.Parse(r.Path); err != nil || !strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, "//") ||
		strings.ContainsAny(r.Path, "?# \t") || u.Scheme != "" {
		col.add(path+".path", "must be an absolute URL path such as %q, without query string or fragment", DefaultRealtimePath)
	}
	switch {
	case r.AudioFile != "" && r.AudioDuration != 0:
		col.add(path+".audio_duration", "audio_file and audio_duration are mutually exclusive")
	case r.AudioFile == "" && (r.AudioDuration <= 0 || r.AudioDuration > LimitAudioDuration):
		col.add(path+".audio_duration", "must be > 0 and at most %v", LimitAudioDuration)
	case r.AudioFile == "" && r.outlasts(timeout, r.AudioDuration):
		col.add(path+".audio_duration", "%s", outlastsMsg(r.AudioDuration, timeout))
	}
	if r.ChunkDuration < MinChunkDuration || r.ChunkDuration > LimitChunkDuration {
		col.add(path+".chunk_duration", "must be between %v and %v", MinChunkDuration, LimitChunkDuration)
	}
	if r.Pacing != PacingRealtime && r.Pacing != PacingFast {
		col.add(path+".pacing", "unknown pacing %s (supported: %s, %s)", quote(r.Pacing), PacingRealtime, PacingFast)
	}
}

// outlasts reports whether audio of duration d, paced by r, takes at least
// timeout to send, so that every request would time out; a timeout ≤ 0 is
// reported elsewhere.
func (r *Realtime) outlasts(timeout, d time.Duration) bool {
	return r.Pacing == PacingRealtime && timeout > 0 && d >= timeout
}

// outlastsMsg explains why audio of duration d cannot be sent within timeout.
func outlastsMsg(d, timeout time.Duration) string {
	return fmt.Sprintf("pacing realtime sends the audio over its own duration (%v), so every request would time out: "+
		"timeout (%v) must exceed it; raise timeout, shorten the audio or use pacing fast", d, timeout)
}

// resolveAudioFiles makes every relative audio file name relative to dir,
// the configuration file's directory.
func (c *Config) resolveAudioFiles(dir string) {
	for i := range c.Targets {
		if r := c.Targets[i].Realtime; r != nil && r.AudioFile != "" && !filepath.IsAbs(r.AudioFile) {
			r.AudioFile = filepath.Join(dir, r.AudioFile)
		}
	}
}
