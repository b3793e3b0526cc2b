package openai

import (
	"encoding/json"

	"github.com/llmprober/llmprober/probe"
)

// decoded is what the prober reads of a stream chunk or a whole response
// (see chunk): its choices, whether it carries token and visible output
// (kinds), whether a choice finished, its usage report, and the error it
// reports (serverError).
type decoded struct {
	// choices is the number of choices; listed reports a "choices" member
	// that is an array (not absent, not null).
	choices int
	listed  bool
	// token, visible and finished are as chunk.kinds and chunk.finished say.
	token, visible, finished bool
	usage                    usageReport
	// failed reports an error, err (as chunk.serverError returns it).
	failed bool
	err    probe.ServerError
}

// usageState says whether and how a usage member was sent.
type usageState uint8

const (
	usageNone      usageState = iota // absent or null
	usageMalformed                   // not an object
	usageGiven                       // an object, read into prompt and completion
)

// usageReport is a chunk's usage member as read.
type usageReport struct {
	state              usageState
	prompt, completion probe.TokenCount
}

// apply passes the report, if any, to u.
func (r usageReport) apply(u *probe.Usage) {
	switch r.state {
	case usageMalformed:
		u.Malformed()
	case usageGiven:
		u.Report(r.prompt, r.completion)
	}
}

// decodeChunk decodes data, a chunk or a whole response without a byte
// order mark. It fails as encoding/json's decoding into chunk fails (a
// syntax error, a member of the wrong type, a malformed text field), with
// encoding/json's error. Most chunks are read by walking their tokens
// (walker.chunk), without allocating; what the walk cannot be sure to read
// as encoding/json would is decoded by encoding/json (decodeSlow).
func decodeChunk(data []byte) (decoded, error) {
	w := walkers.Get().(*walker)
	var d decoded
	ok := w.chunk(data, &d)
	w.Reset(nil) // keep no reference to data in the pool
	walkers.Put(w)
	if ok {
		return d, nil
	}
	return decodeSlow(data)
}

// decodeSlow decodes data with encoding/json into chunk, then reads it.
func decodeSlow(data []byte) (decoded, error) {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return decoded{}, err
	}
	return c.decoded(data), nil
}
