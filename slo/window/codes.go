package window

// maxCodes is how many distinct error codes a store keeps; an entry
// numbers them from 1, and codeNotKept stands for any code after them.
const maxCodes = 254

// codeNotKept is the code number of a record whose code came after maxCodes others.
const codeNotKept = maxCodes + 1

// codeNotKeptText is shown for codeNotKept.
const codeNotKeptText = "(not kept: more than 254 distinct error codes)"

// codeTable is a store's error codes, each kept once so that an entry
// holds a one-byte number instead of the text: at most maxCodes of
// probe.MaxErrorCodeChars characters each, 16 KB per target whatever the
// server sends. It only grows, so a snapshot may read a copy of the slice
// header taken under the store's lock while later codes are appended.
type codeTable []string

// number returns the number of code, adding it when it is new; 0 for no
// code.
func (t *codeTable) number(code string) uint8 {
	if code == "" {
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

// text returns the code numbered n; "" for 0.
func (t codeTable) text(n uint8) string {
	switch {
	case n == 0:
		return ""
	case n == codeNotKept || int(n) > len(t):
		return codeNotKeptText
	}
	return t[n-1]
}
