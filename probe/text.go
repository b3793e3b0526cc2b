package probe

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Text is a text field of a server's response (a chat delta's content,
// refusal or reasoning, a completion's text, a realtime delta or
// transcript) in any of the shapes servers send: null, a string, an
// array of content parts, or one part alone. A part is null, a string, or
// an object whose "text" is null or absent (an image or audio part), a
// string, or the Assistants API's {"value": string}. Text records only
// whether any of it was non-empty. Any other JSON type, anywhere in the
// shape (5, true, {"text":5}, [[…]]), fails decoding with ErrText, so
// that a malformed field is a malformed chunk in every backend.
type Text bool

// ErrText is the failure of a text field of another JSON type.
var ErrText = errors.New("text is not a string, a content part or an array of them")

// UnmarshalJSON reads a text field.
func (t *Text) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		has, err := partText(data)
		*t = Text(has)
		return err
	}
	*t = false
	return eachPart(data, func(p []byte) error {
		has, err := partText(p)
		*t = *t || Text(has)
		return err
	})
}

// eachPart calls read with each item of data, a JSON array, one at a time
// in one reused buffer, and stops at the first error: the items are never
// all kept at once (an array of empty strings would keep 40 bytes for each
// 3), so what reading an array costs does not grow with its items.
func eachPart(data []byte, read func([]byte) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return err
	}
	var p json.RawMessage
	for dec.More() {
		if err := dec.Decode(&p); err != nil {
			return err
		}
		if err := read(p); err != nil {
			return err
		}
	}
	return nil
}

// partText reports whether one content part (or a text field that is not
// an array) holds non-empty text.
func partText(data []byte) (bool, error) {
	var p struct {
		Text json.RawMessage `json:"text"`
	}
	if !isObject(data) {
		return stringText(data)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return false, err
	}
	return textMember(p.Text)
}

// textMember reports whether a part's "text" holds non-empty text: it is
// null, absent, a string, or an object whose "value" is one of those.
func textMember(data []byte) (bool, error) {
	var v struct {
		Value json.RawMessage `json:"value"`
	}
	if !isObject(data) {
		return stringText(data)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return false, err
	}
	return stringText(v.Value)
}

// isObject reports whether data, white space aside, begins a JSON object.
func isObject(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) > 0 && data[0] == '{'
}

// stringText reports whether data (null, absent or a string) is a
// non-empty string.
func stringText(data []byte) (bool, error) {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0 || bytes.Equal(data, []byte("null")):
		return false, nil
	case data[0] != '"':
		return false, ErrText
	case plainString(data):
		return len(data) > 2, nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return false, err
	}
	return s != "", nil
}

// plainString reports whether data is a whole JSON string without escapes
// or control characters, which therefore decodes to its inner bytes (with
// invalid UTF-8 replaced, never removed).
func plainString(data []byte) bool {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return false
	}
	for _, c := range data[1 : len(data)-1] {
		if c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return true
}
