package openai

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/llmprober/llmprober/probe"
)

// bodyTemplate writes the JSON request body of a backend: what is the same
// for every request (model, stream, stream_options, ignore_eos) is encoded
// once, and each request splices in its max tokens fields and its messages
// (chat) or prompt (completions). The members are in the order of their
// names, and each value is encoded by encoding/json without HTML escaping,
// so the body is byte for byte what encoding a map of the members would
// give.
type bodyTemplate struct {
	head   []byte   // "{" and ignore_eos, when set
	fields [][]byte // the max tokens fields' names and colons, in the order of the names
	key    []byte   // "messages": or "prompt": (and model, which sorts before prompt)
	tail   []byte   // model (after messages), stream and stream_options, then "}"
	chat   bool
}

// newBodyTemplate encodes the members of cfg's requests that do not change
// (cfg.MaxTokensFields holds max_tokens and max_completion_tokens only,
// which sort between ignore_eos and messages).
func newBodyTemplate(cfg *Config) (*bodyTemplate, error) {
	t := &bodyTemplate{head: []byte("{"), chat: cfg.API == apiChat}
	names := slices.Clone(cfg.MaxTokensFields)
	slices.Sort(names)
	for _, f := range slices.Compact(names) {
		t.fields = append(t.fields, append(strconv.AppendQuote(nil, f), ':'))
	}
	if cfg.IgnoreEOS {
		t.head = append(t.head, `"ignore_eos":true`...)
	}
	var model []byte
	if cfg.Model != "" {
		var err error
		if model, err = member("model", cfg.Model); err != nil {
			return nil, err
		}
	}
	var tail bytes.Buffer
	if t.chat {
		t.key = []byte(`"messages":`)
		if len(model) > 0 {
			tail.WriteByte(',')
			tail.Write(model)
		}
	} else {
		if len(model) > 0 {
			t.key = append(model, ',')
		}
		t.key = append(t.key, `"prompt":`...)
	}
	tail.WriteString(`,"stream":` + strconv.FormatBool(cfg.Stream))
	if cfg.Stream {
		tail.WriteString(`,"stream_options":{"include_usage":true}`)
	}
	tail.WriteByte('}')
	t.tail = tail.Bytes()
	return t, nil
}

// body returns the JSON request body of req: the template's members, each
// max tokens field when req.MaxOutputTokens is positive, and req's
// messages (an empty array when nil) or their contents joined by newlines.
func (t *bodyTemplate) body(req *probe.Request) ([]byte, error) {
	var buf bytes.Buffer
	size := len(t.head) + len(t.key) + len(t.tail) + 32*len(t.fields) + 16
	for _, m := range req.Messages {
		size += len(m.Role) + len(m.Content) + 32
	}
	buf.Grow(size)
	buf.Write(t.head)
	sep := len(t.head) > 1
	if req.MaxOutputTokens > 0 {
		var num [20]byte
		for _, f := range t.fields {
			if sep {
				buf.WriteByte(',')
			}
			sep = true
			buf.Write(f)
			buf.Write(strconv.AppendInt(num[:0], int64(req.MaxOutputTokens), 10))
		}
	}
	if sep {
		buf.WriteByte(',')
	}
	buf.Write(t.key)
	if err := encodeJSON(&buf, t.value(req)); err != nil {
		return nil, err
	}
	buf.Write(t.tail)
	return buf.Bytes(), nil
}

// value returns what the messages or prompt member holds for req.
func (t *bodyTemplate) value(req *probe.Request) any {
	if !t.chat {
		return prompt(req.Messages)
	}
	if req.Messages == nil {
		return []probe.Message{}
	}
	return req.Messages
}

// member returns "name":v, v encoded by encodeJSON.
func member(name string, v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(strconv.AppendQuote(nil, name))
	buf.WriteByte(':')
	err := encodeJSON(&buf, v)
	return buf.Bytes(), err
}

// encodeJSON appends v to buf as encoding/json encodes it without HTML
// escaping, without the encoder's trailing newline.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}
