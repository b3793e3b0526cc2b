package trace

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Azure trace column names.
const (
	columnTimestamp = "TIMESTAMP"
	columnContext   = "ContextTokens"
	columnGenerated = "GeneratedTokens"
)

// azureLayout is the layout of the Azure trace's timestamps; the fractional
// seconds that follow ("46.6805900") are accepted by time.Parse.
const azureLayout = "2006-01-02 15:04:05"

// azureColumns are the positions of the needed columns in a row.
type azureColumns struct{ timestamp, context, generated int }

// parseAzureCSV reads an Azure LLM inference trace. Every row must have a
// timestamp; times are relative to the first row's.
func parseAzureCSV(r io.Reader, name string) (*Trace, error) {
	lines := &lineLimit{r: r}
	cr := csv.NewReader(lines)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &Error{File: name, Msg: "trace is empty: it has no header and no requests"}
	}
	if err != nil {
		return nil, lines.error(name, err)
	}
	cols, err := azureHeader(header, name)
	if err != nil {
		return nil, err
	}
	c := newChecker(name)
	var first time.Time
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return c.t, nil
		}
		if err != nil {
			return nil, lines.error(name, err)
		}
		line, _ := cr.FieldPos(0)
		req, at, perr := azureRequest(rec, cols, name, line)
		if perr != nil {
			return nil, perr
		}
		if len(c.t.Requests) == 0 {
			first = at
		}
		if req.Timestamp = at.Sub(first); req.Timestamp > MaxTimestamp {
			return nil, &Error{File: name, Line: line, Field: columnTimestamp, Msg: fmt.Sprintf("is more than %v after the first row", MaxTimestamp)}
		}
		if err := c.add(req, columnTimestamp, ""); err != nil {
			return nil, err
		}
	}
}

// azureHeader finds the needed columns, in any order; other columns are ignored.
func azureHeader(header []string, name string) (azureColumns, error) {
	pos := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := pos[h]; !dup {
			pos[h] = i
		}
	}
	var missing []string
	for _, c := range []string{columnTimestamp, columnContext, columnGenerated} {
		if _, ok := pos[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return azureColumns{}, &Error{File: name, Line: 1, Field: "header",
			Msg: fmt.Sprintf("missing column %s (want %s,%s,%s)", strings.Join(missing, ", "), columnTimestamp, columnContext, columnGenerated)}
	}
	return azureColumns{pos[columnTimestamp], pos[columnContext], pos[columnGenerated]}, nil
}

// azureRequest checks one row and returns it with its absolute time.
func azureRequest(rec []string, cols azureColumns, name string, line int) (Request, time.Time, *Error) {
	fail := func(field, msg string) (Request, time.Time, *Error) {
		return Request{}, time.Time{}, &Error{File: name, Line: line, Field: field, Msg: msg}
	}
	raw := strings.TrimSpace(rec[cols.timestamp])
	at, err := time.Parse(azureLayout, raw)
	if err != nil {
		return fail(columnTimestamp, `must be a time such as "2023-11-16 18:15:46.6805900", got `+quote(raw))
	}
	req := Request{Line: line, HasTimestamp: true}
	var msg string
	if req.PromptTokens, msg = csvTokens(rec[cols.context]); msg != "" {
		return fail(columnContext, msg)
	}
	if req.OutputTokens, msg = csvTokens(rec[cols.generated]); msg != "" {
		return fail(columnGenerated, msg)
	}
	return req, at, nil
}

// csvTokens parses a token count column.
func csvTokens(raw string) (int, string) {
	raw = strings.TrimSpace(raw)
	v, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("must be an integer from 1 to %d, got %s", MaxTokens, quote(raw))
	}
	n, msg := tokens(v)
	if msg != "" {
		msg += ", got " + quote(raw)
	}
	return n, msg
}

// csvError turns a CSV reader error into an *Error naming the line.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{File: name, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return fmt.Errorf("could not read trace %s: %w", name, err)
}

// errLineTooLong is the read error of a line past MaxLineBytes.
var errLineTooLong = fmt.Errorf("line is longer than %d bytes", MaxLineBytes)

// lineLimit reads r and fails with errLineTooLong once a row (up to a
// newline outside quotes: a quoted field's newlines belong to its row) is
// longer than MaxLineBytes, so that the CSV reader, which has no bound of
// its own, never keeps more.
type lineLimit struct {
	r      io.Reader
	cur    int  // bytes of the current row so far
	line   int  // newlines read so far
	quoted bool // inside a quoted field
}

func (l *lineLimit) Read(p []byte) (int, error) {
	if l.cur > MaxLineBytes {
		return 0, errLineTooLong
	}
	p = p[:min(len(p), MaxLineBytes+1-l.cur)]
	n, err := l.r.Read(p)
	l.scan(p[:n])
	return n, err
}

// scan counts b into the current row: a newline outside quotes ends it.
func (l *lineLimit) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\"\n")
		if i < 0 {
			l.cur += len(b)
			return
		}
		l.cur += i + 1
		switch {
		case b[i] == '"':
			l.quoted = !l.quoted
		case l.quoted:
			l.line++
		default:
			l.line++
			l.cur = 0
		}
		b = b[i+1:]
	}
}

// error returns the error of a failed read of a CSV trace: a line past
// the bound names its line (the one after the newlines read), others as
// csvError says.
func (l *lineLimit) error(name string, err error) error {
	if errors.Is(err, errLineTooLong) {
		return &Error{File: name, Line: l.line + 1, Msg: errLineTooLong.Error()}
	}
	return csvError(name, err)
}
