package realtime

// The event names of the realtime transcription protocol, in one place. The
// client sends vLLM's spelling; it accepts vLLM's and OpenAI's spellings of
// the server events where they differ. Sources: vLLM's
// vllm/entrypoints/openai/realtime/protocol.py (the /v1/realtime endpoint)
// and OpenAI's Realtime API reference (server events of transcription
// sessions).

// Client events (sent by llmprober).
const (
	// EventSessionUpdate configures the session: {"type", "model"}.
	EventSessionUpdate = "session.update"
	// EventAppend carries one chunk of audio: {"type", "audio"}, the audio
	// base64-encoded PCM16 mono at 16 kHz.
	EventAppend = "input_audio_buffer.append"
	// EventCommit asks the server to process the buffered audio: {"type",
	// "final"}; final false starts transcribing, final true ends the input.
	EventCommit = "input_audio_buffer.commit"
)

// Server events that llmprober acts on.
const (
	// EventSessionCreated is the first server event of a connection (vLLM and OpenAI).
	EventSessionCreated = "session.created"
	// EventTranscriptionSessionCreated is OpenAI's first event of a transcription session.
	EventTranscriptionSessionCreated = "transcription_session.created"
	// EventDelta is vLLM's partial transcript: {"type", "delta"}.
	EventDelta = "transcription.delta"
	// EventOpenAIDelta is OpenAI's partial transcript: {"type", "item_id", "delta", …}.
	EventOpenAIDelta = "conversation.item.input_audio_transcription.delta"
	// EventDone is vLLM's final transcript: {"type", "text", "usage"}.
	EventDone = "transcription.done"
	// EventOpenAICompleted is OpenAI's final transcript: {"type", "transcript", "usage"}.
	EventOpenAICompleted = "conversation.item.input_audio_transcription.completed"
	// EventError reports an error: "error" is an object with "message"
	// (OpenAI) or a plain string (vLLM).
	EventError = "error"
	// EventOpenAIFailed is OpenAI's report that transcribing a committed
	// item failed: {"type", "item_id", "content_index", "error"}, "error"
	// an object with "message"; it ends the request as an error event does.
	EventOpenAIFailed = "conversation.item.input_audio_transcription.failed"
)

// createdEvents, deltaEvents, doneEvents and errorEvents map each spelling
// of an event to true.
var (
	createdEvents = map[string]bool{EventSessionCreated: true, EventTranscriptionSessionCreated: true}
	deltaEvents   = map[string]bool{EventDelta: true, EventOpenAIDelta: true}
	doneEvents    = map[string]bool{EventDone: true, EventOpenAICompleted: true}
	errorEvents   = map[string]bool{EventError: true, EventOpenAIFailed: true}
)

// ignoredEvents are server events that carry nothing llmprober measures;
// they are skipped without counting toward the bound on unknown events.
var ignoredEvents = map[string]bool{
	"session.updated":                                     true,
	"transcription_session.updated":                       true,
	"input_audio_buffer.committed":                        true,
	"input_audio_buffer.cleared":                          true,
	"input_audio_buffer.speech_started":                   true,
	"input_audio_buffer.speech_stopped":                   true,
	"input_audio_buffer.timeout_triggered":                true,
	"conversation.item.created":                           true,
	"conversation.item.added":                             true,
	"conversation.item.done":                              true,
	"conversation.item.input_audio_transcription.segment": true,
	"rate_limits.updated":                                 true,
}

// Audio format the protocol carries.
const (
	// SampleRate is the audio sample rate in Hz.
	SampleRate = 16000
	// bytesPerSample is the size of one PCM16 mono sample.
	bytesPerSample = 2
)
