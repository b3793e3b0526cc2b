package config

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// textError returns the first reason data is not a configuration's text,
// UTF-8 without control characters other than tab and line breaks, with
// its line; nil when it is. The YAML decoder reports the same problems
// without a line.
func textError(data []byte, filename string) *FieldError {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return &FieldError{File: filename, Line: 1, Msg: "the file is UTF-16 text; save it as UTF-8"}
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return &FieldError{File: filename, Line: line,
				Msg: fmt.Sprintf("column %d: invalid UTF-8 (byte 0x%02x); the configuration must be UTF-8 text", col, data[i])}
		case notAllowed(r):
			return &FieldError{File: filename, Line: line,
				Msg: fmt.Sprintf("column %d: control character %U is not allowed", col, r)}
		case r == '\n', r == '\r' && (i+1 == len(data) || data[i+1] != '\n'):
			line, col = line+1, 0
		}
		i += size
		col++
	}
	return nil
}

// notAllowed reports whether YAML forbids r in a document: a control
// character other than tab, line feed, carriage return and next line, or
// the non-characters U+FFFE and U+FFFF.
func notAllowed(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == '\u0085':
		return false
	case r < 0x20 || r == 0x7f || (0x80 <= r && r <= 0x9f):
		return true
	}
	return r == '\uFFFE' || r == '\uFFFF'
}
