package exporter

import (
	"time"

	"github.com/llmprober/llmprober/probe"
)

// RecentPerTarget is how many finished requests are kept per target for display.
const RecentPerTarget = 20

// maxErrorText is the longest error text kept for display, in runes.
const maxErrorText = 120

// ProbeSummary is what is kept of one finished request for display. Absent
// quantities are nil, never zero.
type ProbeSummary struct {
	// Time is when the request ended (or started, when it never ended); zero
	// when neither is known.
	Time time.Time
	// Seq is the request's sequence number within its target.
	Seq uint64
	// Outcome and ErrorType are the request's status and its error class.
	Outcome   probe.Outcome
	ErrorType probe.ErrorType
	// Error is the record's error text with the runes the log escapes
	// escaped (probe.Printable), shortened to maxErrorText runes.
	Error string
	// ErrorCode is the server's error code (Record.ErrorCode), as the
	// server sent it: the page and the API escape it as they show it.
	ErrorCode probe.ErrorCode
	// HTTPStatus is the response status code; 0 when no response arrived.
	HTTPStatus int
	// Latency, TTFT, TTFOT, ITL and TPOT are the per-request quantities; nil
	// when undefined for this request.
	Latency, TTFT, TTFOT, ITL, TPOT *time.Duration
	// OutputTokens is the output token count, meaningful only when
	// OutputTokensFrom is not probe.TokensUnknown.
	OutputTokens     int
	OutputTokensFrom probe.TokenSource
	// UsageInconsistent and TokensClamped are the record's usage flags.
	UsageInconsistent, TokensClamped bool
}

// summarize extracts the displayed fields of rec.
func summarize(rec *probe.Record) ProbeSummary {
	t := rec.End
	if t.IsZero() {
		t = rec.RequestStart
	}
	return ProbeSummary{
		Time: t, Seq: rec.Seq, Outcome: rec.Outcome, ErrorType: rec.ErrorType,
		Error: shorten(probe.Printable(rec.Error), maxErrorText), ErrorCode: rec.ErrorCode, HTTPStatus: rec.HTTPStatus,
		Latency: optional(rec.Latency()), TTFT: optional(rec.TTFT()), TTFOT: optional(rec.TTFOT()),
		ITL: optional(rec.ITL()), TPOT: optional(rec.TPOT()),
		OutputTokens: rec.OutputTokens, OutputTokensFrom: rec.OutputTokensFrom,
		UsageInconsistent: rec.UsageInconsistent, TokensClamped: rec.TokensClamped,
	}
}

// optional returns &d when ok, else nil.
func optional(d time.Duration, ok bool) *time.Duration {
	if !ok {
		return nil
	}
	return &d
}

// shorten cuts s to at most n runes, marking a cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ring keeps the last len(items) summaries.
type ring struct {
	items []ProbeSummary
	next  int // index the next push writes
	n     int // number of valid items
}

// newRing returns an empty ring of the given capacity (at least 1).
func newRing(size int) *ring {
	return &ring{items: make([]ProbeSummary, max(size, 1))}
}

// push adds p, overwriting the oldest item when full.
func (r *ring) push(p ProbeSummary) {
	r.items[r.next] = p
	r.next = (r.next + 1) % len(r.items)
	r.n = min(r.n+1, len(r.items))
}

// newestFirst returns a copy of the items, the most recent first.
func (r *ring) newestFirst() []ProbeSummary {
	out := make([]ProbeSummary, 0, r.n)
	for i := 1; i <= r.n; i++ {
		out = append(out, r.items[(r.next-i+len(r.items))%len(r.items)])
	}
	return out
}
