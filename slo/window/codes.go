package window

import "github.com/llmprober/llmprober/probe"

// maxCodes is how many distinct error codes a store keeps; an entry
// numbers them from 1, and codeNotKept stands for any code after them.
const maxCodes = 254

// codeNotKept is the code number of a record whose code came after maxCodes others.
const codeNotKept = maxCodes + 1

// codeNotKeptText is shown for codeNotKept.
const codeNotKeptText = "(not kept: more than 254 distinct error codes)"

// codeNotKeptCode is the code shown for codeNotKept: text, not the server's.
var codeNotKeptCode = probe.ErrorCode{Text: codeNotKeptText, Kind: probe.CodeOther}

// codeTable is a store's error codes, each kept once so that an entry
// holds a one-byte number instead of the text: at most maxCodes of
// probe.MaxErrorCodeChars characters each, 16 KB per target whatever the
// server sends. It only grows, so a snapshot may read a copy of the slice
// header taken under the store's lock while later codes are appended.
type codeTable []probe.ErrorCode

// number returns the number of code, adding it when it is new; 0 for no
// code. Codes of one text and another JSON type (400, "400") are
// different codes.
func (t *codeTable) number(code probe.ErrorCode) uint8 {
	if code.Kind == probe.CodeNone {
		return 0
	}
	for i, c := range *t {
		if c == code {
			return uint8(i + 1)
		}
	}
	if len(*t) >= maxCodes {
		return codeNotKept
	}
	*t = append(*t, code)
	return uint8(len(*t))
}

// code returns the code numbered n; no code for 0.
func (t codeTable) code(n uint8) probe.ErrorCode {
	switch {
	case n == 0:
		return probe.ErrorCode{}
	case n == codeNotKept || int(n) > len(t):
		return codeNotKeptCode
	}
	return t[n-1]
}
