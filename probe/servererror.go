package probe

import (
	"bytes"
	"encoding/json"
)

// ServerError is an error a server reported, in an error response body or
// an error event: its message and its code, neither bounded nor redacted.
type ServerError struct {
	// Message is the error's text.
	Message string
	// Code is the error's "code", with its JSON type (ErrorCodeOf).
	Code ErrorCode
}

// ParseServerError reads an error report of any of the shapes servers
// use: a JSON string is the message; in a JSON object, an "error" member
// that is set (Truthy: an object or a string, read the same way) comes
// first, then the object's own "message", else "detail", and its "code"
// when the error member has none; an object with no message is its own
// JSON text, and so is any other JSON value; data that is not JSON is its
// own text. JSON text is re-encoded compactly with its strings unescaped
// (so that a secret in it can be redacted). Empty data, and JSON null, are
// no report at all (the zero ServerError). An "error" member is followed
// into at most MaxErrorNesting objects: one nested deeper is its own JSON
// text, so that a report of {"error":{"error":… ten thousand deep does not
// keep a copy of itself at every level.
func ParseServerError(data []byte) ServerError { return parseServerError(data, 0) }

// MaxErrorNesting bounds how many "error" members ParseServerError
// follows into one another.
const MaxErrorNesting = 4

// parseServerError is ParseServerError of data found inside depth error members.
func parseServerError(data []byte, depth int) ServerError {
	data = bytes.TrimSpace(TrimBOM(data))
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return ServerError{}
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		return ServerError{Message: s}
	}
	var obj struct {
		Error, Message, Detail, Code json.RawMessage
	}
	if depth > MaxErrorNesting || data[0] != '{' || json.Unmarshal(data, &obj) != nil {
		return ServerError{Message: compactJSON(data)}
	}
	var e ServerError
	if Truthy(obj.Error) {
		e = parseServerError(obj.Error, depth+1)
	}
	if e.Message == "" {
		e.Message = firstText(obj.Message, obj.Detail)
	}
	if e.Message == "" {
		e.Message = compactJSON(data)
	}
	if e.Code.Kind == CodeNone {
		e.Code = ErrorCodeOf(obj.Code)
	}
	return e
}

// Empty reports whether e carries neither a message nor a code.
func (e ServerError) Empty() bool { return e.Message == "" && e.Code.Kind == CodeNone }

// firstText returns the text of the first value that has one: a string as
// it is, any other non-null value as its JSON.
func firstText(raws ...json.RawMessage) string {
	for _, raw := range raws {
		raw = bytes.TrimSpace(raw)
		var s string
		switch {
		case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		case json.Unmarshal(raw, &s) == nil:
			if s != "" {
				return s
			}
		default:
			return compactJSON(raw)
		}
	}
	return ""
}
