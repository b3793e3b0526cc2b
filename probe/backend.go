package probe

import (
	"context"
	"time"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is one request the workload hands to a backend.
type Request struct {
	// Seq is the request's sequence number within its target, from 0.
	Seq uint64
	// TargetedStart is the scheduled send time; zero without an arrival schedule.
	TargetedStart time.Time
	// PredecessorDone is when the conversation's previous turn finished, if
	// after TargetedStart; zero otherwise.
	PredecessorDone time.Time
	// ConversationID and Turn identify a multi-turn request; empty and 0 otherwise.
	ConversationID string
	Turn           int
	// Messages is the chat history to send (chat API); the completions API
	// sends their contents joined by newlines.
	Messages []Message
	// PromptTokens is the workload's own estimate of the prompt length, used
	// when the server reports no usage.
	PromptTokens int
	// MaxOutputTokens is the output length to force; 0 sets no limit.
	MaxOutputTokens int
}

// Backend sends requests to one endpoint and measures them.
type Backend interface {
	// Do sends req and returns its record, with every timestamp read from the
	// backend's clock. It never returns an error and never panics on bad input
	// from the server: failures are the record's outcome and error type. When
	// ctx is cancelled by the prober the record is incomplete; when the
	// backend's own request timeout expires it is errored with ErrorTimeout.
	Do(ctx context.Context, req *Request) *Record
}

// DropReason says why a scheduled request was never sent.
type DropReason string

// Drop reasons.
const (
	// DropQueueFull: the backlog of requests waiting for a concurrency slot was full.
	DropQueueFull DropReason = "queue_full"
	// DropShutdown: the request was still waiting for a slot when the prober stopped.
	DropShutdown DropReason = "shutdown"
)

// DropReasons lists every drop reason, in a fixed order.
var DropReasons = []DropReason{DropQueueFull, DropShutdown}

// TargetState is where a target stands in its start-up gate.
type TargetState string

// Target states.
const (
	// StateWaiting: waiting for the endpoint to answer its readiness check.
	StateWaiting TargetState = "waiting"
	// StateReady: the gate passed; the target is being probed.
	StateReady TargetState = "ready"
	// StateFailed: the endpoint did not become ready within the start-up
	// timeout; the gate keeps checking, and the target is probed once it passes.
	StateFailed TargetState = "failed"
)

// TargetStates lists every target state, in a fixed order.
var TargetStates = []TargetState{StateWaiting, StateReady, StateFailed}

// Observer is told everything a prober does. Implementations must be safe for
// concurrent use and must not block.
type Observer interface {
	// Scheduled: a request became due.
	Scheduled(target string)
	// Dropped: a due request was not sent.
	Dropped(target string, reason DropReason)
	// Started: a request is about to be sent (it is now in flight).
	Started(target string)
	// Finished: a request ended; rec is complete and must not be modified.
	Finished(rec *Record)
	// State: the target's start-up gate changed state; waited is the time spent
	// waiting since the gate started.
	State(target string, state TargetState, waited time.Duration)
}

// Observers fans each call out to every observer in order.
type Observers []Observer

// Scheduled implements Observer.
func (os Observers) Scheduled(target string) {
	for _, o := range os {
		o.Scheduled(target)
	}
}

// Dropped implements Observer.
func (os Observers) Dropped(target string, reason DropReason) {
	for _, o := range os {
		o.Dropped(target, reason)
	}
}

// Started implements Observer.
func (os Observers) Started(target string) {
	for _, o := range os {
		o.Started(target)
	}
}

// Finished implements Observer.
func (os Observers) Finished(rec *Record) {
	for _, o := range os {
		o.Finished(rec)
	}
}

// State implements Observer.
func (os Observers) State(target string, state TargetState, waited time.Duration) {
	for _, o := range os {
		o.State(target, state, waited)
	}
}
