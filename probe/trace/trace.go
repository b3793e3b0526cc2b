// Package trace reads request traces for replay: a JSON Lines format of its
// own and the Azure LLM inference trace CSV. A trace is a list of requests,
// each with an optional arrival time relative to the trace's start, the
// prompt and output lengths in tokens, and optionally the conversation and
// turn it belongs to. The package checks everything it reads and reports
// each problem with the file, line and field; it never panics on bad input.
package trace

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe/localfile"
)

// Formats of a trace file.
const (
	// FormatJSONL is one JSON object per line: "timestamp" (seconds from the
	// trace's start, optional), "prompt_tokens", "output_tokens", and
	// optionally "conversation_id" (a string) and "turn" (1, 2, 3, … within
	// a conversation). Other keys are ignored; a key given twice is an error.
	FormatJSONL = "jsonl"
	// FormatAzureCSV is the Azure LLM inference trace: a CSV file with the
	// columns TIMESTAMP ("2023-11-16 18:15:46.6805900"), ContextTokens and
	// GeneratedTokens; times are taken relative to the first row.
	FormatAzureCSV = "azure_csv"
)

// Formats lists the supported formats.
var Formats = []string{FormatJSONL, FormatAzureCSV}

// Bounds on what a trace may hold, so that a wrong file cannot exhaust memory.
const (
	// MaxFileBytes is the largest trace file read, in bytes (1 GiB).
	MaxFileBytes = 1 << 30 // localfile.Trace.MaxBytes
	// MaxLineBytes is the longest line of a JSONL trace, in bytes (1 MiB).
	MaxLineBytes = 1 << 20
	// MaxRequests is the largest number of requests in one trace.
	MaxRequests = 1 << 24
	// MaxTimestamp is the latest relative timestamp accepted (about 31 years).
	MaxTimestamp = 1e9 * time.Second
	// MaxTokens is the largest prompt or output length accepted, in tokens
	// (1048576, the configuration's limit on token counts).
	MaxTokens = 1 << 20
	// maxQuoted bounds how much of a bad value an error message quotes, in bytes.
	maxQuoted = 40
)

// maxFileBytes is MaxFileBytes, lowered by tests.
var maxFileBytes int64 = MaxFileBytes

// Request is one request of a trace.
type Request struct {
	// Line is the 1-based line of the request in its file.
	Line int
	// Timestamp is the arrival time relative to the trace's start; meaningful
	// only when HasTimestamp. Never negative; never less than an earlier
	// request's timestamp.
	Timestamp time.Duration
	// HasTimestamp reports whether the row gave a timestamp. A request without
	// one has no arrival schedule: it is sent as soon as its turn comes.
	HasTimestamp bool
	// PromptTokens is the prompt length in tokens; ≥ 1.
	PromptTokens int
	// OutputTokens is the output length to force, in tokens; ≥ 1.
	OutputTokens int
	// ConversationID groups the turns of a conversation; empty for a
	// single-turn request.
	ConversationID string
	// Turn is the request's turn in its conversation: 1 for its first row,
	// then one more for each row of the conversation, in file order; 0 when
	// ConversationID is empty.
	Turn int
}

// Trace is a parsed trace file.
type Trace struct {
	// File is the file name used in error messages.
	File string
	// Requests are the requests in file order; at least one.
	Requests []Request
}

// Error is one problem in a trace file.
type Error struct {
	// File is the trace file.
	File string
	// Line is the 1-based line of the problem; 0 for the file as a whole.
	Line int
	// Field names the field or column at fault; empty for the line as a whole.
	Field string
	// Msg says what is wrong.
	Msg string
}

// Error formats the problem as "file:line: field: msg", leaving out the
// parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// errUnknownFormat is returned for a format that is not in Formats.
var errUnknownFormat = errors.New("unknown trace format")

// FormatFor returns the format of a file named name: azure_csv for a ".csv"
// file, jsonl otherwise.
func FormatFor(name string) string {
	if strings.HasSuffix(strings.ToLower(name), ".csv") {
		return FormatAzureCSV
	}
	return FormatJSONL
}

// Read reads and checks the trace file at path in format (empty:
// FormatFor(path)): a regular file (localfile.Open) of at most
// MaxFileBytes. A file that cannot be opened is an error that does not
// name it.
func Read(path, format string) (*Trace, error) {
	f, err := localfile.Open(path, localfile.Trace)
	if err != nil {
		return nil, fmt.Errorf("could not read trace: %w", err)
	}
	defer func() { _ = f.Close() }()
	if format == "" {
		format = FormatFor(path)
	}
	return Parse(f, path, format)
}

// Parse reads and checks a trace from r in format; name is the file name
// used in errors. Problems with the content are returned as *Error.
func Parse(r io.Reader, name, format string) (*Trace, error) {
	limited := &limitReader{r: r, left: maxFileBytes}
	var (
		t   *Trace
		err error
	)
	switch format {
	case FormatJSONL:
		t, err = parseJSONL(limited, name)
	case FormatAzureCSV:
		t, err = parseAzureCSV(limited, name)
	default:
		return nil, fmt.Errorf("could not read trace %s: %w %q (supported: %s)", name, errUnknownFormat, format, strings.Join(Formats, ", "))
	}
	if limited.over {
		return nil, &Error{File: name, Msg: fmt.Sprintf("file is larger than %d bytes", maxFileBytes)}
	}
	if err != nil {
		return nil, err
	}
	if len(t.Requests) == 0 {
		return nil, &Error{File: name, Msg: "trace is empty: it holds no requests"}
	}
	return t, nil
}

// limitReader reads at most left bytes from r and remembers whether r had more.
type limitReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// quote quotes s for an error message, shortened to maxQuoted bytes.
func quote(s string) string {
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "..."
	}
	return strconv.Quote(s)
}

// checker applies the rules that span rows: timestamps never decrease,
// the turns of a conversation are 1, 2, 3, … in file order, and the number
// of requests is bounded.
type checker struct {
	file     string
	t        *Trace
	last     time.Duration // latest timestamp so far
	lastLine int           // its line; 0 before any
	turns    map[string]turnAt
}

// turnAt is the latest turn of a conversation, its line, and the
// conversation's ID as first read, which every later row of the
// conversation shares (an ID is kept once, not once a row).
type turnAt struct {
	turn, line int
	id         string
}

func newChecker(file string) *checker {
	return &checker{file: file, t: &Trace{File: file}, turns: map[string]turnAt{}}
}

// add checks r against the rows before it and appends it.
func (c *checker) add(r Request, timeField, turnField string) error {
	if len(c.t.Requests) >= MaxRequests {
		return &Error{File: c.file, Line: r.Line, Msg: fmt.Sprintf("trace has more than %d requests", MaxRequests)}
	}
	if r.HasTimestamp {
		if c.lastLine > 0 && r.Timestamp < c.last {
			return &Error{File: c.file, Line: r.Line, Field: timeField,
				Msg: fmt.Sprintf("timestamps are not sorted: %v is earlier than %v at line %d", r.Timestamp, c.last, c.lastLine)}
		}
		c.last, c.lastLine = r.Timestamp, r.Line
	}
	if r.ConversationID != "" {
		prev, seen := c.turns[r.ConversationID]
		if seen {
			r.ConversationID = prev.id
		}
		if r.Turn == 0 {
			r.Turn = prev.turn + 1
		}
		if r.Turn != prev.turn+1 {
			msg := fmt.Sprintf("must be %d, got %d: the turns of conversation %s start at 1 and increase by 1",
				prev.turn+1, r.Turn, quote(r.ConversationID))
			if prev.line > 0 {
				msg += fmt.Sprintf(" (turn %d at line %d)", prev.turn, prev.line)
			}
			return &Error{File: c.file, Line: r.Line, Field: turnField, Msg: msg}
		}
		c.turns[r.ConversationID] = turnAt{r.Turn, r.Line, r.ConversationID}
	}
	c.t.Requests = append(c.t.Requests, r)
	return nil
}

// tokens checks a token count.
func tokens(v int64) (int, string) {
	if v < 1 || v > MaxTokens {
		return 0, fmt.Sprintf("must be an integer from 1 to %d", MaxTokens)
	}
	return int(v), ""
}

// NoSpan says why a trace whose timestamps are all 0 cannot loop.
const NoSpan = "its timestamps span no time (every one is 0); spread them, or leave them out to replay the rows back to back"

// Timed returns the number of requests with a timestamp.
func (t *Trace) Timed() int {
	n := 0
	for _, r := range t.Requests {
		if r.HasTimestamp {
			n++
		}
	}
	return n
}

// Period is the length of one pass of the trace when it is replayed in a
// loop: the last timestamp plus the mean gap between consecutive timestamps
// (rows without one are left out). It is 0 when every timestamp is 0 (then
// the trace cannot loop) or there is none (then it loops at once).
func (t *Trace) Period() time.Duration {
	var first, last time.Duration
	stamped := 0
	for _, r := range t.Requests {
		if !r.HasTimestamp {
			continue
		}
		if stamped == 0 {
			first = r.Timestamp
		}
		last = r.Timestamp
		stamped++
	}
	if stamped < 2 {
		return last
	}
	return last + (last-first)/time.Duration(stamped-1)
}
