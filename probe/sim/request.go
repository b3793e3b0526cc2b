package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxPromptLog is how many bytes of the prompt a RequestLog keeps.
const maxPromptLog = 200

// streamOptions is the stream_options object of a request.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// common holds the fields both completion APIs share.
type common struct {
	Model               string         `json:"model"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options"`
	MaxTokens           *int           `json:"max_tokens"`
	MaxCompletionTokens *int           `json:"max_completion_tokens"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type chatBody struct {
	common
	Messages []chatMessage `json:"messages"`
}

type completionBody struct {
	common
	Prompt json.RawMessage `json:"prompt"`
}

// parsed is what a request body says, whichever API it came to.
type parsed struct {
	model        string
	stream       bool
	includeUsage bool
	maxTokens    *int // the smaller of max_tokens and max_completion_tokens
	promptWords  int
	prompt       string // for the log, at most maxPromptLog bytes
}

var errBadBody = errors.New("invalid request body")

// parseChat reads a chat completion request body.
func parseChat(body []byte) (parsed, error) {
	var b chatBody
	if err := json.Unmarshal(body, &b); err != nil {
		return parsed{}, fmt.Errorf("could not parse body: %w", err)
	}
	if len(b.Messages) == 0 {
		return parsed{}, fmt.Errorf("could not parse body: %w: messages is empty", errBadBody)
	}
	p, err := b.parsed()
	if err != nil {
		return parsed{}, err
	}
	for _, m := range b.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return parsed{}, err
		}
		p.promptWords += len(strings.Fields(text))
		if m.Role == "user" {
			p.prompt = clip(text)
		}
	}
	return p, nil
}

// parseCompletion reads a completion request body.
func parseCompletion(body []byte) (parsed, error) {
	var b completionBody
	if err := json.Unmarshal(body, &b); err != nil {
		return parsed{}, fmt.Errorf("could not parse body: %w", err)
	}
	p, err := b.parsed()
	if err != nil {
		return parsed{}, err
	}
	text, words, err := promptText(b.Prompt)
	if err != nil {
		return parsed{}, err
	}
	p.prompt, p.promptWords = clip(text), words
	return p, nil
}

func (c common) parsed() (parsed, error) {
	p := parsed{model: c.Model, stream: c.Stream}
	if c.StreamOptions != nil {
		p.includeUsage = c.StreamOptions.IncludeUsage
	}
	for _, m := range []*int{c.MaxTokens, c.MaxCompletionTokens} {
		if m == nil {
			continue
		}
		if *m < 0 {
			return parsed{}, fmt.Errorf("could not parse body: %w: negative max tokens %d", errBadBody, *m)
		}
		if p.maxTokens == nil || *m < *p.maxTokens {
			v := *m
			p.maxTokens = &v
		}
	}
	return p, nil
}

// messageText returns a message content's text: a string, or the text parts
// of an array of content parts joined by spaces; null is empty.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("could not parse message content: %w", err)
	}
	texts := make([]string, 0, len(parts))
	for _, part := range parts {
		if part.Type == "text" {
			texts = append(texts, part.Text)
		}
	}
	return strings.Join(texts, " "), nil
}

// promptText returns a completion prompt's text and length: a string or an
// array of strings counts words; an array of token ids, or of arrays of them,
// counts ids (and has no text).
func promptText(raw json.RawMessage) (string, int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", 0, fmt.Errorf("could not parse body: %w: prompt is missing", errBadBody)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, len(strings.Fields(s)), nil
	}
	var ss []string
	if json.Unmarshal(raw, &ss) == nil {
		text := strings.Join(ss, "\n")
		return text, len(strings.Fields(text)), nil
	}
	var ids []int64
	if json.Unmarshal(raw, &ids) == nil {
		return "", len(ids), nil
	}
	var batches [][]int64
	if err := json.Unmarshal(raw, &batches); err != nil {
		return "", 0, fmt.Errorf("could not parse prompt: %w", err)
	}
	n := 0
	for _, b := range batches {
		n += len(b)
	}
	return "", n, nil
}

// clip returns at most the first maxPromptLog bytes of s, cut at a character
// boundary.
func clip(s string) string {
	if len(s) <= maxPromptLog {
		return s
	}
	cut := maxPromptLog
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
