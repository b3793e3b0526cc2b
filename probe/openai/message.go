package openai

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/llmprober/llmprober/probe"
)

// drainBytes bounds how much of an unwanted or error body is read, in bytes.
const drainBytes = 64 << 10

// readLimited reads at most drainBytes of body; a read failure keeps what arrived.
func readLimited(body io.Reader) []byte {
	data, _ := io.ReadAll(io.LimitReader(body, drainBytes))
	return data
}

// drain reads and discards at most drainBytes of body, so that a short
// body does not cost the connection.
func drain(body io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainBytes))
}

// bodyMessage returns the server's error message in an error response body:
// the "error" member (object or string), else "message", else "detail";
// for a body that is not JSON, the start of the body itself. The result is
// not yet bounded nor redacted.
func bodyMessage(data []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &v) == nil {
		for _, raw := range []json.RawMessage{v.Error, v.Message, v.Detail} {
			if m := errorMessage(raw); m != "" {
				return m
			}
		}
	}
	return string(bytes.TrimSpace(data[:min(len(data), 4*probe.MaxErrorChars)]))
}

// errorMessage returns the text of an error value: a string as it is, an
// object's "message" (or the object's JSON when it has none), and any other
// value's JSON; empty for an absent or null value.
func errorMessage(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return string(raw)
}
