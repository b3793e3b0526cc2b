package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
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

// The rule for values quoted in configuration errors, so that a secret
// pasted into the wrong setting is not printed back: only the values of
// settings with a fixed vocabulary or syntax (names, enumerations,
// durations, addresses, keys of mappings) are ever quoted, through quote,
// and only when at most maxQuoted characters long without a run of
// keyRunLen or more letters and digits mixing both (as API keys have).
// Free text (base_url, model, tag, header values, api_key_env, paths) is
// never quoted; a file is named only once it has been opened.
const (
	maxQuoted = 32
	keyRunLen = 16
)

// quote returns v quoted for an error message under the rule above, or
// its length when the rule hides it.
func quote(v string) string {
	if n := utf8.RuneCountInString(v); n > maxQuoted || hasKeyRun(v) {
		return fmt.Sprintf("(%d characters, not shown)", n)
	}
	return strconv.Quote(v)
}

// Quote returns v quoted for an error message under the rule of quote
// (at most 32 characters, no run of 16 letters and digits mixing both),
// or its length when the rule hides it, for the messages about values
// that other packages read.
func Quote(v string) string { return quote(v) }

// hasKeyRun reports whether s has keyRunLen or more ASCII letters and
// digits in a row, with at least one of each.
func hasKeyRun(s string) bool {
	run, letters, digits := 0, false, false
	for i := 0; i <= len(s); i++ {
		var c byte
		if i < len(s) {
			c = s[i]
		}
		isLetter := ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		isDigit := '0' <= c && c <= '9'
		if isLetter || isDigit {
			run++
			letters, digits = letters || isLetter, digits || isDigit
			continue
		}
		if run >= keyRunLen && letters && digits {
			return true
		}
		run, letters, digits = 0, false, false
	}
	return false
}
