package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/jsonwalk"
)

// chunk is the part of a stream chunk or a whole response that is measured.
// Chat chunks carry choices[].delta, chat responses choices[].message, and
// completions choices[].text.
type chunk struct {
	Choices boundedList[choice] `json:"choices"`
	Usage   json.RawMessage     `json:"usage"`
	Error   json.RawMessage     `json:"error"`
	// Type and Object are "error" in the error reports of some servers
	// ({"type":"error",…}, vLLM's {"object":"error","message":…,"code":…}).
	Type   errorKind `json:"type"`
	Object errorKind `json:"object"`
	// Message and Detail are the members of a bare error report, one
	// without choices ({"message":…,"code":…}, FastAPI's {"detail":…}).
	Message json.RawMessage `json:"message"`
	Detail  json.RawMessage `json:"detail"`
}

type choice struct {
	Delta        delta           `json:"delta"`
	Message      delta           `json:"message"`
	Text         probe.Text      `json:"text"`
	FinishReason *string         `json:"finish_reason"`
	Error        json.RawMessage `json:"error"`
}

// delta is a chat chunk's delta or a chat response's message.
type delta struct {
	Content          probe.Text                   `json:"content"`
	Refusal          probe.Text                   `json:"refusal"`
	ReasoningContent probe.Text                   `json:"reasoning_content"`
	Reasoning        probe.Text                   `json:"reasoning"`
	ToolCalls        boundedList[json.RawMessage] `json:"tool_calls"`
	FunctionCall     json.RawMessage              `json:"function_call"`
}

// usage is a usage report.
type usage struct {
	PromptTokens     probe.TokenCount `json:"prompt_tokens"`
	CompletionTokens probe.TokenCount `json:"completion_tokens"`
}

// kinds reports whether the chunk is a token event (any content, refusal,
// reasoning, tool call or text) and whether it carries visible output
// (content, refusal or text). A whole response's message counts as its
// delta.
func (c *chunk) kinds() (token, visible bool) {
	for _, ch := range c.Choices {
		for _, d := range []*delta{&ch.Delta, &ch.Message} {
			if bool(d.Content || d.Refusal || ch.Text) {
				visible = true
			}
			if bool(d.ReasoningContent || d.Reasoning) || len(d.ToolCalls) > 0 || present(d.FunctionCall) {
				token = true
			}
		}
	}
	return token || visible, visible
}

// present reports whether a JSON value is there and not null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
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

// serverError returns the error the chunk (data) reports, if any: an
// "error" member that is set (probe.Truthy), at the top level or in a
// choice; a "type" or "object" that is "error"; a choice whose
// finish_reason is "error"; or, in a chunk without a "choices" member, a
// "message" that is a non-empty string or a "detail" that is set (a bare
// error report). Members that are not set (null, false, 0, "", [], {})
// report nothing, as a client's `if error:` passes over them.
func (c *chunk) serverError(data []byte) (probe.ServerError, bool) {
	if probe.Truthy(c.Error) || bool(c.Type || c.Object) || c.bare() {
		return probe.ParseServerError(data), true
	}
	for _, ch := range c.Choices {
		if probe.Truthy(ch.Error) {
			return probe.ParseServerError(ch.Error), true
		}
		if ch.FinishReason != nil && *ch.FinishReason == "error" {
			return probe.ServerError{Message: `finish_reason "error"`}, true
		}
	}
	return probe.ServerError{}, false
}

// bare reports whether the chunk is a bare error report: no "choices"
// member, and a non-empty "message" string or a "detail" that is set.
func (c *chunk) bare() bool {
	if c.Choices != nil {
		return false
	}
	var msg string
	return json.Unmarshal(c.Message, &msg) == nil && msg != "" || probe.Truthy(c.Detail)
}

// errorKind is a "type" or "object" member, decoded as whether it is
// "error" (isErrorKind), so that the member is not copied.
type errorKind bool

// UnmarshalJSON sets k to whether data is the string "error".
func (k *errorKind) UnmarshalJSON(data []byte) error {
	*k = errorKind(isErrorKind(data))
	return nil
}

// isErrorKind reports whether a "type" or "object" member is "error". A
// member that is not a JSON string is not; a string without escapes is
// compared as it stands (no decoding could make other bytes "error"); one
// with escapes is decoded first.
func isErrorKind(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == `"error"`
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == "error"
}

// usageReport reads the chunk's usage member.
func (c *chunk) usageReport() usageReport {
	if !present(c.Usage) {
		return usageReport{}
	}
	var r usage
	if json.Unmarshal(c.Usage, &r) != nil {
		return usageReport{state: usageMalformed}
	}
	return usageReport{state: usageGiven, prompt: r.PromptTokens, completion: r.CompletionTokens}
}

// decoded reads the chunk (data, decoded into c).
func (c *chunk) decoded(data []byte) decoded {
	d := decoded{choices: len(c.Choices), listed: c.Choices != nil, finished: c.finished(), usage: c.usageReport()}
	d.token, d.visible = c.kinds()
	d.err, d.failed = c.serverError(data)
	return d
}

// boundedList is a JSON array that encoding/json decodes as a []T, but
// fails past probe.MaxResponseItems items (before decoding any), so that
// what a message of a few bytes an item keeps is bounded.
type boundedList[T any] []T

// UnmarshalJSON decodes data (null or an array, as []T takes it) after
// counting its items.
func (l *boundedList[T]) UnmarshalJSON(data []byte) error {
	if n := jsonwalk.Items(data, probe.MaxResponseItems+1); n > probe.MaxResponseItems {
		return fmt.Errorf("more than %d items in an array", probe.MaxResponseItems)
	}
	return json.Unmarshal(data, (*[]T)(l))
}
