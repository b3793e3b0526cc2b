package probe

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Truthy reports whether a JSON value is set in the sense of a client's
// `if error:` (the OpenAI Python client's test of an error member): false
// for an absent value, null, false, any zero number (0, -0, 0.0, 0e5), "",
// [] and {}; true for anything else, "0" and "false" included. A server's
// error member that is not truthy reports no error.
func Truthy(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case 'n', 'f':
		return false
	case 't':
		return true
	case '"':
		return !bytes.Equal(raw, []byte(`""`))
	case '[', '{':
		return !emptyComposite(raw) // one that is not valid JSON is set
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return err != nil || f != 0
}

// emptyComposite reports whether raw, which begins with [ or {, is an
// empty JSON array or object: its closing bracket, with nothing but JSON
// white space before it. Any other such text is a non-empty array or
// object, or not JSON.
func emptyComposite(raw []byte) bool {
	closing := byte(']')
	if raw[0] == '{' {
		closing = '}'
	}
	inner := bytes.TrimLeft(raw[1:], " \t\r\n")
	return len(inner) == 1 && inner[0] == closing
}

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte order mark.
var utf8BOM = []byte("\xef\xbb\xbf")

// TrimBOM returns data without a leading UTF-8 byte order mark. RFC 8259
// forbids sending one before a JSON text but lets parsers ignore it, and
// llmprober does, wherever it reads JSON from a server: a whole response,
// an error body, a stream chunk's data, a realtime message.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }
