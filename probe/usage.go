package probe

import (
	"bytes"
	"math"
	"strconv"
)

// MaxTokens is the largest token count a record holds. A server's report
// above it (2^63 − 1, 1e30) is clamped to it when decoded, and a clamped
// count cannot be true: it is not taken (Usage.Apply), and the record
// says so (UsageInconsistent and TokensClamped).
const MaxTokens = math.MaxInt32

// CountState says what a server's token count was.
type CountState uint8

// The states of a TokenCount.
const (
	// CountAbsent: not reported, or null.
	CountAbsent CountState = iota
	// CountValid: a whole number from 0 to MaxTokens (2.0 and 2e1 count).
	CountValid
	// CountClamped: a whole number above MaxTokens; N is MaxTokens.
	CountClamped
	// CountInvalid: negative, fractional, or not a number ("3", true, {}).
	CountInvalid
)

// TokenCount is one token count of a usage report. Decoding it never fails:
// what the server sent is told by State.
type TokenCount struct {
	// N is the count; 0 unless State is CountValid or CountClamped.
	N int
	// State says whether and how the count was reported.
	State CountState
}

// UnmarshalJSON reads a JSON value as a token count.
func (c *TokenCount) UnmarshalJSON(data []byte) error {
	*c = countOf(bytes.TrimSpace(data))
	return nil
}

// countOf reads a JSON value as a token count.
func countOf(data []byte) TokenCount {
	if len(data) == 0 || string(data) == "null" {
		return TokenCount{}
	}
	if c := data[0]; c != '-' && (c < '0' || c > '9') {
		return TokenCount{State: CountInvalid}
	}
	f, err := strconv.ParseFloat(string(data), 64)
	switch {
	case err != nil && !math.IsInf(f, 1), f < 0, f != math.Trunc(f):
		return TokenCount{State: CountInvalid}
	case f > MaxTokens:
		return TokenCount{N: MaxTokens, State: CountClamped}
	}
	return TokenCount{N: int(f), State: CountValid}
}

// reported reports whether the count was given as a whole number.
func (c TokenCount) reported() bool { return c.State == CountValid || c.State == CountClamped }

// Usage gathers the usage reports of one response and decides the
// record's token counts from them. The zero value has seen no report.
type Usage struct {
	prompt, output TokenCount // the last count reported of each
	inconsistent   bool
	streamed       bool
}

// Streamed notes that the response is a stream whose token events are
// counted: without a usable report its output tokens are their count.
func (u *Usage) Streamed() { u.streamed = true }

// Report takes one usage report. A later count replaces an earlier one:
// servers that repeat cumulative usage in every chunk are not summed. An
// invalid count, or one lower than the count reported before it, makes
// the usage inconsistent.
func (u *Usage) Report(prompt, output TokenCount) {
	u.take(&u.prompt, prompt)
	u.take(&u.output, output)
}

// Malformed notes a usage report that is not an object at all.
func (u *Usage) Malformed() { u.inconsistent = true }

// take replaces *last by c when c was reported.
func (u *Usage) take(last *TokenCount, c TokenCount) {
	switch {
	case c.State == CountInvalid:
		u.inconsistent = true
	case c.reported():
		if last.reported() && c.N < last.N {
			u.inconsistent = true
		}
		*last = c
	}
}

// Sent is what a request told the server, against which the usage report
// of its response is judged.
type Sent struct {
	// PromptTokens is the workload's count of the prompt's tokens; 0 when
	// it has none.
	PromptTokens int
	// Prompt reports that a prompt was sent, so that a report of no prompt
	// tokens cannot be true.
	Prompt bool
	// MaxOutputTokens is the output limit the request set (max_tokens); 0
	// when it set none.
	MaxOutputTokens int
}

// Apply sets rec's token counts, their sources and the flags
// UsageInconsistent and TokensClamped, once the response has been read.
// Output tokens come from the usage report when it can be true: at least
// the token events of a stream (each carries at least one token), at
// least 1 for a whole response with output (rec.OutputSeen), none when no
// output was seen at all, and at most the request's limit
// (sent.MaxOutputTokens), a count clamped to MaxTokens being above any.
// Otherwise, and without a report, a stream's tokens (see Streamed) are
// the count of token events and other responses' are unknown. Prompt
// tokens come from the report unless it says 0 although a prompt was sent
// or had to be clamped, else from the workload's count (0 when it has
// none: unknown).
func (u *Usage) Apply(rec *Record, sent Sent) {
	lo, hi := outputBounds(rec, u.streamed, sent.MaxOutputTokens)
	out := u.output
	taken := out.State == CountValid && out.N >= lo && out.N <= hi
	switch {
	case taken:
		rec.OutputTokens, rec.OutputTokensFrom = out.N, TokensFromUsage
	case u.streamed:
		rec.OutputTokens, rec.OutputTokensFrom = rec.Iterations, TokensCounted
	}
	if out.reported() && !taken {
		u.inconsistent = true
	}
	rec.TokensClamped = out.State == CountClamped || u.prompt.State == CountClamped
	u.applyPrompt(rec, sent)
	rec.UsageInconsistent = u.inconsistent
}

// outputBounds returns the fewest and the most output tokens a response
// can have had, by what was seen of it and the limit it was sent (0: none).
func outputBounds(rec *Record, streamed bool, limit int) (lo, hi int) {
	lo, hi = rec.Iterations, MaxTokens
	switch {
	case !rec.HasOutput():
		return 0, 0
	case !streamed:
		lo = max(lo, 1)
	}
	if limit > 0 {
		hi = min(hi, limit)
	}
	return lo, hi
}

// applyPrompt sets rec's prompt tokens; see Apply.
func (u *Usage) applyPrompt(rec *Record, sent Sent) {
	p := u.prompt
	if p.State == CountClamped || p.reported() && p.N == 0 && sent.Prompt {
		u.inconsistent = true
		p = TokenCount{}
	}
	switch {
	case p.reported():
		rec.PromptTokens, rec.PromptTokensFrom = p.N, TokensFromUsage
	case sent.PromptTokens > 0:
		rec.PromptTokens, rec.PromptTokensFrom = min(sent.PromptTokens, MaxTokens), TokensFromWorkload
	}
}
