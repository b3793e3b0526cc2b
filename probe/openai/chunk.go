package openai

import (
	"encoding/json"

	"github.com/llmprober/llmprober/probe"
)

// chunk is the part of a stream chunk or a whole response that is measured.
// Chat chunks carry choices[].delta, chat responses choices[].message, and
// completions choices[].text.
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Delta        delta   `json:"delta"`
	Message      delta   `json:"message"`
	Text         string  `json:"text"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Content          string            `json:"content"`
	ReasoningContent string            `json:"reasoning_content"`
	Reasoning        string            `json:"reasoning"`
	ToolCalls        []json.RawMessage `json:"tool_calls"`
}

type usage struct {
	PromptTokens     *int `json:"prompt_tokens"`
	CompletionTokens *int `json:"completion_tokens"`
}

// kinds reports whether the chunk is a token event (any content, reasoning,
// tool call or text) and whether it carries visible output (content or text).
func (c *chunk) kinds() (token, visible bool) {
	for _, ch := range c.Choices {
		d := ch.Delta
		if d.Content != "" || ch.Text != "" {
			visible = true
		}
		if d.ReasoningContent != "" || d.Reasoning != "" || len(d.ToolCalls) > 0 {
			token = true
		}
	}
	return token || visible, visible
}

// finished reports whether any choice has a finish reason.
func (c *chunk) finished() bool {
	for _, ch := range c.Choices {
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			return true
		}
	}
	return false
}

// tokens gathers the token counts of one response.
type tokens struct {
	prompt, output       int
	hasPrompt, hasOutput bool // reported by the server's usage
	counted              bool // output may be counted as token events (streaming)
}

// add takes the counts of a usage report; a later report replaces an earlier
// one (servers that report cumulative usage in every chunk are not summed).
func (t *tokens) add(u *usage) {
	if u == nil {
		return
	}
	if u.PromptTokens != nil && *u.PromptTokens >= 0 {
		t.prompt, t.hasPrompt = *u.PromptTokens, true
	}
	if u.CompletionTokens != nil && *u.CompletionTokens >= 0 {
		t.output, t.hasOutput = *u.CompletionTokens, true
	}
}

// apply sets the record's token counts: from usage when reported, else the
// counted token events (streaming) and the workload's prompt length.
func (t *tokens) apply(rec *probe.Record, req *probe.Request) {
	switch {
	case t.hasOutput:
		rec.OutputTokens, rec.OutputTokensFrom = t.output, probe.TokensFromUsage
	case t.counted:
		rec.OutputTokens, rec.OutputTokensFrom = rec.Iterations, probe.TokensCounted
	}
	switch {
	case t.hasPrompt:
		rec.PromptTokens, rec.PromptTokensFrom = t.prompt, probe.TokensFromUsage
	case req.PromptTokens > 0:
		rec.PromptTokens, rec.PromptTokensFrom = req.PromptTokens, probe.TokensFromWorkload
	}
}
