package sim

import (
	"encoding/json"
	"fmt"
	"strings"
)

// usage is the token accounting of an answer; prompt tokens are words.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// envelope is the part every chunk and answer shares.
type envelope struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   *usage `json:"usage,omitempty"`
}

type chatDelta struct {
	Role             string  `json:"role,omitempty"`
	Content          *string `json:"content,omitempty"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
}

type chatChunkChoice struct {
	Index        int       `json:"index"`
	Delta        chatDelta `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type textChoice struct {
	Index        int       `json:"index"`
	Text         string    `json:"text"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type chatOutMessage struct {
	Role             string  `json:"role"`
	Content          string  `json:"content"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
}

type chatChoice struct {
	Index        int            `json:"index"`
	Message      chatOutMessage `json:"message"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
}

func mustMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("could not marshal: %v", err)) // our own types always marshal
	}
	return b
}

func (p *plan) usage() *usage {
	return &usage{
		PromptTokens:     p.req.promptWords,
		CompletionTokens: p.n,
		TotalTokens:      p.req.promptWords + p.n,
	}
}

// chunk returns a stream event's data holding choices.
func (p *plan) chunk(choices any, u *usage) []byte {
	object := "text_completion"
	if p.api == APIChat {
		object = "chat.completion.chunk"
	}
	return mustMarshal(envelope{
		ID: p.id, Object: object, Created: p.created, Model: p.model, Choices: choices, Usage: u,
	})
}

func (p *plan) roleChunk() []byte {
	empty := ""
	return p.chunk([]chatChunkChoice{{Delta: chatDelta{Role: "assistant", Content: &empty}}}, nil)
}

func (p *plan) tokenChunk(i int) []byte {
	text := p.text[i]
	if p.api != APIChat {
		return p.chunk([]textChoice{{Text: text}}, nil)
	}
	d := chatDelta{Content: &text}
	if p.isReasoning(i) {
		d = chatDelta{ReasoningContent: &text}
	}
	return p.chunk([]chatChunkChoice{{Delta: d}}, nil)
}

func (p *plan) finishChunk() []byte {
	reason := p.finish
	if p.api != APIChat {
		return p.chunk([]textChoice{{FinishReason: &reason}}, nil)
	}
	return p.chunk([]chatChunkChoice{{FinishReason: &reason}}, nil)
}

func (p *plan) usageChunk() []byte {
	if p.api != APIChat {
		return p.chunk([]textChoice{}, p.usage())
	}
	return p.chunk([]chatChunkChoice{}, p.usage())
}

// malformedChunk returns event data that starts like a chunk but is cut off.
func (p *plan) malformedChunk() []byte {
	whole := p.finishChunk()
	return whole[:len(whole)/2]
}

// errorEvent returns the data of an error event sent mid-stream.
func errorEvent() []byte {
	return errorJSON(500, "server_error", "simulated error mid-stream")
}

// whole returns the body of a non-streamed answer.
func (p *plan) whole() []byte {
	var reasoning, content strings.Builder
	for i, t := range p.text {
		if p.isReasoning(i) {
			reasoning.WriteString(t)
		} else {
			content.WriteString(t)
		}
	}
	e := envelope{ID: p.id, Object: "text_completion", Created: p.created, Model: p.model, Usage: p.usage()}
	reason := p.finish
	if p.api != APIChat {
		e.Choices = []textChoice{{Text: content.String(), FinishReason: &reason}}
		return mustMarshal(e)
	}
	msg := chatOutMessage{Role: "assistant", Content: content.String()}
	if p.reasoning > 0 {
		r := reasoning.String()
		msg.ReasoningContent = &r
	}
	e.Object = "chat.completion"
	e.Choices = []chatChoice{{Message: msg, FinishReason: p.finish}}
	return mustMarshal(e)
}
