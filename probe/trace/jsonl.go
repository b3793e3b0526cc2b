package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// jsonRow is one JSONL row, its fields kept raw so that each problem can
// name its field. Unknown fields are ignored; a key given twice is an error.
type jsonRow struct {
	Timestamp      json.RawMessage `json:"timestamp"`
	PromptTokens   json.RawMessage `json:"prompt_tokens"`
	OutputTokens   json.RawMessage `json:"output_tokens"`
	ConversationID json.RawMessage `json:"conversation_id"`
	Turn           json.RawMessage `json:"turn"`
}

// JSONL field names.
const (
	fieldTimestamp      = "timestamp"
	fieldPromptTokens   = "prompt_tokens"
	fieldOutputTokens   = "output_tokens"
	fieldConversationID = "conversation_id"
	fieldTurn           = "turn"
)

// parseJSONL reads a JSONL trace. Blank lines are skipped.
func parseJSONL(r io.Reader, name string) (*Trace, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	c := newChecker(name)
	for line := 1; ; line++ {
		data, err := readLine(br)
		if errors.Is(err, io.EOF) && len(data) == 0 {
			return c.t, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("line is longer than %d bytes", MaxLineBytes)}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("could not read trace %s: %w", name, err)
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			continue
		}
		req, perr := jsonRequest(data, name, line)
		if perr != nil {
			return nil, perr
		}
		if err := c.add(req, fieldTimestamp, fieldTurn); err != nil {
			return nil, err
		}
	}
}

// readLine returns the next line without its end, up to MaxLineBytes; it
// returns bufio.ErrBufferFull for a longer line.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLineBytes {
			return nil, bufio.ErrBufferFull
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

// jsonRequest decodes and checks one row.
func jsonRequest(data []byte, name string, line int) (Request, *Error) {
	fail := func(field, msg string) (Request, *Error) {
		return Request{}, &Error{File: name, Line: line, Field: field, Msg: msg}
	}
	var row jsonRow
	if err := json.Unmarshal(data, &row); err != nil {
		return fail("", "not a JSON object: "+jsonProblem(err))
	}
	if key, msg := duplicateKey(data); msg != "" {
		return fail(key, msg)
	}
	req := Request{Line: line}
	var msg string
	if req.Timestamp, req.HasTimestamp, msg = jsonTimestamp(row.Timestamp); msg != "" {
		return fail(fieldTimestamp, msg)
	}
	if req.PromptTokens, msg = jsonTokens(row.PromptTokens); msg != "" {
		return fail(fieldPromptTokens, msg)
	}
	if req.OutputTokens, msg = jsonTokens(row.OutputTokens); msg != "" {
		return fail(fieldOutputTokens, msg)
	}
	if req.ConversationID, msg = jsonConversation(row.ConversationID); msg != "" {
		return fail(fieldConversationID, msg)
	}
	if req.Turn, msg = jsonTurn(row.Turn, req.ConversationID != ""); msg != "" {
		return fail(fieldTurn, msg)
	}
	return req, nil
}

// jsonFields are the keys of a row that are decoded.
var jsonFields = []string{fieldTimestamp, fieldPromptTokens, fieldOutputTokens, fieldConversationID, fieldTurn}

// duplicateKey returns the first key that the JSON object data (already
// checked to be one) gives twice, and a message; "" when there is none. A
// decoded field matches its key in any case, as encoding/json does, so
// "Turn" and "turn" are the same key.
func duplicateKey(data []byte) (key, msg string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return "", ""
	}
	seen := map[string]string{} // canonical key → its first spelling
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		if err != nil || !ok {
			return "", ""
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", ""
		}
		canon := name
		for _, f := range jsonFields {
			if strings.EqualFold(name, f) {
				canon = f
			}
		}
		first, dup := seen[canon]
		if !dup {
			seen[canon] = name
			continue
		}
		other := first
		if first == canon {
			other = name
		}
		if other != canon {
			return canon, "duplicate key (also as " + quote(other) + ")"
		}
		return canon, "duplicate key"
	}
	return "", ""
}

// jsonProblem shortens a decoding error for a message.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the line is a JSON " + te.Value
	}
	return "invalid JSON"
}

// absent reports whether a raw value is missing or null.
func absent(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// jsonTimestamp decodes an optional number of seconds, 0 ≤ s ≤ MaxTimestamp.
func jsonTimestamp(raw json.RawMessage) (time.Duration, bool, string) {
	if absent(raw) {
		return 0, false, ""
	}
	var s float64
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, false, "must be a number of seconds, got " + quote(string(raw))
	}
	switch {
	case s < 0:
		return 0, false, fmt.Sprintf("must not be negative, got %v", s)
	case s > MaxTimestamp.Seconds():
		return 0, false, fmt.Sprintf("must be at most %v seconds, got %v", MaxTimestamp.Seconds(), s)
	}
	return time.Duration(math.Round(s * 1e9)), true, ""
}

// jsonTokens decodes a required token count.
func jsonTokens(raw json.RawMessage) (int, string) {
	if absent(raw) {
		return 0, "required"
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, fmt.Sprintf("must be an integer from 1 to %d, got %s", MaxTokens, quote(string(raw)))
	}
	return tokens(v)
}

// jsonConversation decodes an optional non-empty string.
func jsonConversation(raw json.RawMessage) (string, string) {
	if absent(raw) {
		return "", ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" {
		return "", "must be a non-empty string, got " + quote(string(raw))
	}
	return s, ""
}

// jsonTurn decodes an optional turn number ≥ 1; it needs a conversation.
func jsonTurn(raw json.RawMessage, inConversation bool) (int, string) {
	if absent(raw) {
		return 0, ""
	}
	if !inConversation {
		return 0, "needs a conversation_id"
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil || v < 1 || v > math.MaxInt32 {
		return 0, "must be an integer >= 1, got " + quote(string(raw))
	}
	return int(v), ""
}
