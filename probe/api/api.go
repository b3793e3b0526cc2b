// Package api lists the API kinds and the backends that send them, with
// what each one measures: the one list that the configuration's
// validation, the exporter's series and the daemon's backend constructors
// derive from. It imports neither Prometheus nor OpenTelemetry; the
// operation names are the values of gen_ai.operation.name, which the
// exporter's tests hold against the semantic conventions.
package api

import "slices"

// Names of the API kinds (a target's api, a record's API).
const (
	// Chat is the chat completions API (POST /chat/completions).
	Chat = "chat"
	// Completions is the text completions API (POST /completions).
	Completions = "completions"
	// Realtime is streaming transcription over a realtime WebSocket: audio
	// in, text out.
	Realtime = "realtime"
)

// Names of the backends (a target's backend).
const (
	// HTTP is the OpenAI-compatible HTTP backend (SSE streams or unary).
	HTTP = "openai_http"
	// WebSocket is the realtime WebSocket backend.
	WebSocket = "openai_websocket"
)

// Kind is one API kind and what its backend measures.
type Kind struct {
	// Name is the kind's name (Chat, Completions, Realtime).
	Name string
	// Backend names the backend that sends it.
	Backend string
	// Operation is its gen_ai.operation.name. The conventions have no
	// transcription operation; a realtime target sends audio and gets
	// text back, the multimodal generate_content.
	Operation string
	// AlwaysStreams: every response is streamed; otherwise streaming is
	// the target's choice (stream).
	AlwaysStreams bool
	// RoundTrips: the backend measures round trips (time to the last
	// round trip, average round-trip time).
	RoundTrips bool
	// HTTPPhases: requests go over HTTP, with DNS, connect, TLS and
	// first-byte phases.
	HTTPPhases bool
	// Conversations: the kind can send multi-turn conversations.
	Conversations bool
}

// StreamedQuantities are the objective quantities (configuration keys)
// only a streamed response has: a target that does not stream can set no
// objective on them.
var StreamedQuantities = []string{"ttft", "ttfot", "itl"}

// kinds lists every API kind; a backend's first kind is its default.
var kinds = []Kind{
	{Name: Chat, Backend: HTTP, Operation: "chat", HTTPPhases: true, Conversations: true},
	{Name: Completions, Backend: HTTP, Operation: "text_completion", HTTPPhases: true, Conversations: true},
	{Name: Realtime, Backend: WebSocket, Operation: "generate_content", AlwaysStreams: true, RoundTrips: true},
}

// backends lists every backend, the first the default.
var backends = []string{HTTP, WebSocket}

// Kinds returns every API kind, in order.
func Kinds() []Kind { return slices.Clone(kinds) }

// Lookup returns the API kind named name, and whether there is one.
func Lookup(name string) (Kind, bool) {
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return kinds[i], true
}

// Backends returns every backend's name, the default first.
func Backends() []string { return slices.Clone(backends) }

// DefaultBackend is the backend of a target that names none.
func DefaultBackend() string { return backends[0] }

// Of returns the names of the API kinds backend sends, its default first;
// none for an unknown backend.
func Of(backend string) []string {
	var out []string
	for _, k := range kinds {
		if k.Backend == backend {
			out = append(out, k.Name)
		}
	}
	return out
}
