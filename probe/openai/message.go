package openai

import (
	"fmt"
	"io"

	"github.com/llmprober/llmprober/probe"
)

// drainBytes bounds how much of an unwanted or error body is read, in bytes.
const drainBytes = 64 << 10

// readLimited reads at most drainBytes of body; a read failure keeps what
// arrived. cut reports that the body went on past the limit.
func readLimited(body io.Reader) (data []byte, cut bool) {
	data, _ = io.ReadAll(io.LimitReader(body, drainBytes+1))
	if len(data) > drainBytes {
		return data[:drainBytes], true
	}
	return data, false
}

// drain reads and discards at most drainBytes of body, so that a short
// body does not cost the connection.
func drain(body io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainBytes))
}

// bodyError reads at most drainBytes of an error or unexpected body and
// returns the error it reports (see probe.ParseServerError; a body that is
// not JSON is its own text). A body cut at the limit is redacted first,
// its end too (probe.Redactor.Cut), so that no part of a key survives the
// cut; the message is bounded later, when the record is made.
func (b *Backend) bodyError(body io.Reader) probe.ServerError {
	data, cut := readLimited(body)
	if cut {
		data = []byte(b.redact.Cut(string(data)))
	}
	return probe.ParseServerError(data)
}

// serverFailure returns the failure of type typ that what describes,
// followed by the server's message when there is one; it keeps the
// server's error code.
func serverFailure(typ probe.ErrorType, what string, e probe.ServerError) error {
	msg := what
	if e.Message != "" {
		msg = fmt.Sprintf("%s: %s", what, e.Message)
	}
	return &probe.Failure{Type: typ, Msg: msg, Code: e.Code}
}
