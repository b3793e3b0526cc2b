package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FieldError is one problem with the configuration.
type FieldError struct {
	// File is the configuration file; empty when the setting did not come
	// from a file (environment, flag, or a Config built in code).
	File string
	// Line is the 1-based line in File; 0 when unknown.
	Line int
	// Path names the setting: a YAML path such as "targets[0].schedule.rate",
	// or the environment variable or flag that set it; empty for problems
	// with the file as a whole.
	Path string
	// Msg says what is wrong. It never contains an API key.
	Msg string
}

// Error formats the problem as "file:line: path: msg", leaving out the parts
// that are unknown.
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in a configuration, ordered by line
// (problems without a line first; otherwise in the order found).
type Errors []*FieldError

// Error lists the problems, one per line.
func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, fe := range e {
		lines[i] = fe.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems as errors, for errors.As.
func (e Errors) Unwrap() []error {
	errs := make([]error, len(e))
	for i, fe := range e {
		errs[i] = fe
	}
	return errs
}

// sorted returns e ordered by line, problems without a line first; problems
// on the same line keep their order.
func (e Errors) sorted() Errors {
	slices.SortStableFunc(e, func(a, b *FieldError) int { return a.Line - b.Line })
	return e
}

// orNil returns e as an error, or nil when it holds no problem.
func (e Errors) orNil() error {
	if len(e) == 0 {
		return nil
	}
	return e
}

// collector gathers problems, placing each with the configuration's source.
type collector struct {
	src  *source
	errs Errors
}

// keySources names the settings that give an API key: the environment
// variables when the targets came from the environment.
func (c *collector) keySources() string {
	if c.src.fromEnv() {
		return APIKeyVar + " or LLMPROBER_API_KEY_FILE"
	}
	return "auth.api_key_env or auth.api_key_file"
}

// add records a problem with the setting at path, unless the path is broken
// (the problem would be a consequence of one already reported).
func (c *collector) add(path, format string, args ...any) {
	if c.src.isBroken(path) {
		return
	}
	file, line, shown := c.src.locate(path)
	c.errs = append(c.errs, &FieldError{File: file, Line: line, Path: shown, Msg: fmt.Sprintf(format, args...)})
}
