package sim

import (
	"slices"
	"sync"
	"time"

	"github.com/llmprober/llmprober/probe/api"
)

// The APIs a RequestLog can name.
const (
	// APIChat is POST /v1/chat/completions.
	APIChat = api.Chat
	// APICompletions is POST /v1/completions.
	APICompletions = api.Completions
)

// A realtime session (APIRealtime) is logged like a stream: ChunkSent holds
// every event written (session.created, each delta, malformed and error
// events, transcription.done) or the refused handshake, TokenSent the
// deltas, AudioReceived the arrival of each audio chunk, OutputTokens the
// deltas sent, PromptTokens one per 10 ms of audio received.

// MaxLogged is how many requests the log keeps; older ones are dropped first.
const MaxLogged = 10000

// RequestLog is what the server did with one completion request. Times are
// read from time.Now, the process clock.
type RequestLog struct {
	// ID is the id field of the response ("chatcmpl-sim-7", "cmpl-sim-8").
	ID string
	// API is APIChat, APICompletions or APIRealtime.
	API string
	// Stream is whether the request asked for a streamed answer.
	Stream bool
	// Prompt is the first 200 bytes (cut at a character boundary) of the
	// last user message (chat) or of the prompt (completions); empty when the
	// body could not be parsed.
	Prompt string
	// Received is when the handler started, before the body was read.
	Received time.Time
	// ChunkSent holds, in order, one instant per response part whose write
	// and flush succeeded: every SSE event of a stream (role chunk, token
	// chunks, malformed and error events, finish and usage chunks, [DONE]),
	// or the whole body of a non-streamed answer. Each instant is read just
	// before the write, after any simulated delay, so a client in the same
	// process can never read a part before its ChunkSent. Empty when nothing
	// was written.
	ChunkSent []time.Time
	// TokenSent holds, in order, the ChunkSent instant of each token chunk;
	// empty for non-streamed answers.
	TokenSent []time.Time
	// AudioReceived holds, in order, when each input_audio_buffer.append
	// of a realtime session was read, the first 60000 of them (a client
	// message is at most 8 MiB); empty for the other APIs.
	AudioReceived []time.Time
	// Fault is the fault injected; empty for none.
	Fault Fault
	// OutputTokens is the number of tokens the request was to generate
	// (whether or not they were all sent); 0 when the body was invalid.
	OutputTokens int
	// PromptTokens is the prompt's length in words, as reported in usage.
	PromptTokens int
	// Status is the HTTP status written; 0 when none was (reset or stall
	// before the headers, or a client gone first).
	Status int
	// Canceled reports that the handler stopped early because the client
	// went away or the server was closed.
	Canceled bool
}

func (l RequestLog) clone() RequestLog {
	l.ChunkSent = slices.Clone(l.ChunkSent)
	l.TokenSent = slices.Clone(l.TokenSent)
	l.AudioReceived = slices.Clone(l.AudioReceived)
	return l
}

// ring keeps the last cap entries appended, safe for concurrent use.
type ring struct {
	mu    sync.Mutex
	cap   int
	items []RequestLog
	next  int // index of the oldest item once the ring is full
}

func newRing(capacity int) *ring {
	return &ring{cap: capacity}
}

func (r *ring) add(l RequestLog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.items) < r.cap {
		r.items = append(r.items, l)
		return
	}
	r.items[r.next] = l
	r.next = (r.next + 1) % r.cap
}

// snapshot returns deep copies of the entries, oldest first.
func (r *ring) snapshot() []RequestLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]RequestLog, 0, len(r.items))
	for i := range r.items {
		out = append(out, r.items[(r.next+i)%len(r.items)].clone())
	}
	return out
}
