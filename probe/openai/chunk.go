package openai

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/llmprober/llmprober/probe"
)

// chunk is the part of a stream chunk or a whole response that is measured.
// Chat chunks carry choices[].delta, chat responses choices[].message, and
// completions choices[].text.
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   json.RawMessage `json:"usage"`
	Error   json.RawMessage `json:"error"`
	// Type and Object are "error" in the error reports of some servers
	// ({"type":"error",…}, vLLM's {"object":"error","message":…,"code":…}).
	Type   json.RawMessage `json:"type"`
	Object json.RawMessage `json:"object"`
	// Message and Detail are the members of a bare error report, one
	// without choices ({"message":…,"code":…}, FastAPI's {"detail":…}).
	Message json.RawMessage `json:"message"`
	Detail  json.RawMessage `json:"detail"`
}

type choice struct {
	Delta        delta           `json:"delta"`
	Message      delta           `json:"message"`
	Text         text            `json:"text"`
	FinishReason *string         `json:"finish_reason"`
	Error        json.RawMessage `json:"error"`
}

// delta is a chat chunk's delta or a chat response's message.
type delta struct {
	Content          text              `json:"content"`
	Refusal          text              `json:"refusal"`
	ReasoningContent text              `json:"reasoning_content"`
	Reasoning        text              `json:"reasoning"`
	ToolCalls        []json.RawMessage `json:"tool_calls"`
	FunctionCall     json.RawMessage   `json:"function_call"`
}

// usage is a usage report.
type usage struct {
	PromptTokens     probe.TokenCount `json:"prompt_tokens"`
	CompletionTokens probe.TokenCount `json:"completion_tokens"`
}

// text is a text field in any of the shapes servers send: a string, null,
// an array of content parts ({"type":"text","text":"…"}, or plain strings),
// or one part alone. It records only whether any text was non-empty.
type text bool

// errText is the failure of a text field of another JSON type.
var errText = errors.New("text is not a string, a content part or an array of them")

// UnmarshalJSON reads a text field.
func (t *text) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0 || bytes.Equal(data, []byte("null")):
		*t = false
	case data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*t = s != ""
	case data[0] == '[':
		var parts []part
		if err := json.Unmarshal(data, &parts); err != nil {
			return err
		}
		*t = false
		for _, p := range parts {
			*t = *t || text(p)
		}
	case data[0] == '{':
		var p part
		if err := json.Unmarshal(data, &p); err != nil {
			return err
		}
		*t = text(p)
	default:
		return errText
	}
	return nil
}

// part is one content part: it has text when it is a non-empty string, or
// an object whose "text" is a non-empty string or {"value": "…"} (the
// Assistants API's shape). Parts of other kinds (images, audio) have none.
type part bool

// UnmarshalJSON reads a content part.
func (p *part) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	*p = false
	switch {
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*p = s != ""
	case len(data) > 0 && data[0] == '{':
		var v struct {
			Text json.RawMessage `json:"text"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		*p = part(partText(v.Text))
	}
	return nil
}

// partText reports whether a part's "text" member holds text.
func partText(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s != ""
	}
	var v struct {
		Value string `json:"value"`
	}
	return json.Unmarshal(raw, &v) == nil && v.Value != ""
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
	if probe.Truthy(c.Error) || isErrorKind(c.Type) || isErrorKind(c.Object) || c.bare() {
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

// isErrorKind reports whether a "type" or "object" member is "error".
func isErrorKind(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && s == "error"
}

// report passes the chunk's usage report, if any, to u.
func (c *chunk) report(u *probe.Usage) {
	if !present(c.Usage) {
		return
	}
	var r usage
	if json.Unmarshal(c.Usage, &r) != nil {
		u.Malformed()
		return
	}
	u.Report(r.PromptTokens, r.CompletionTokens)
}
