package stats

import "math"

// Window is a measurement window [Start, End], in seconds from any fixed
// origin the caller chooses (typically the start of measuring). Callers pass
// the effective window: for a rolling window of length W ending at now,
// Start = max(now − W, the time measuring began), so that Length is
// min(W, time since measuring began).
type Window struct {
	Start, End float64
}

// Length returns End − Start in seconds, or 0 when the window is empty,
// reversed or not a number.
func (w Window) Length() float64 {
	l := w.End - w.Start
	if !(l > 0) {
		return 0
	}
	return l
}

// overlap returns the length in seconds of [from, to] ∩ w, 0 when they are
// disjoint.
func (w Window) overlap(from, to float64) float64 {
	l := min(to, w.End) - max(from, w.Start)
	if !(l > 0) {
		return 0
	}
	return l
}

// contains reports whether the instant t lies in [Start, End].
func (w Window) contains(t float64) bool {
	return t >= w.Start && t <= w.End
}

// Rate returns count ÷ w.Length() per second: requests/s from the requests
// completing in the window, goodput from the conforming ones, tokens/s from
// TokensInWindow. ok is false when the window has no length.
func Rate(count float64, w Window) (perSecond float64, ok bool) {
	l := w.Length()
	if l == 0 {
		return 0, false
	}
	return count / l, true
}

// TokenSpan is one request's token timing, in seconds from the window's
// origin, and its token counts.
type TokenSpan struct {
	// FirstToken and LastToken are the times of the first and last token
	// events.
	FirstToken, LastToken float64
	// OutputTokens are spread evenly over [FirstToken, LastToken].
	OutputTokens int64
	// PromptTokens are counted at FirstToken.
	PromptTokens int64
}

// TokensInWindow returns the output and prompt tokens attributable to w.
// A request's output tokens are spread evenly over [FirstToken, LastToken]
// and only the part inside w counts: 10 tokens streamed from 8 s to 12 s
// contribute 10·(10 − 8)/(12 − 8) = 5 to the window [0, 10]. When
// LastToken ≤ FirstToken they all count at FirstToken. Prompt tokens count
// when FirstToken lies in w. Spans with a NaN time are skipped. The result
// is fractional; divide by w.Length() (Rate) for tokens/s.
func TokensInWindow(spans []TokenSpan, w Window) (output, prompt float64) {
	t := NewTokenTally(w)
	for _, s := range spans {
		t.Add(s)
	}
	return t.Totals()
}

// TokenTally is TokensInWindow over spans added one at a time, for callers
// that do not keep them: the same sums in the same order give the same
// totals.
type TokenTally struct {
	w       Window
	out, in compensated
}

// NewTokenTally returns an empty tally of the tokens attributable to w.
func NewTokenTally(w Window) TokenTally { return TokenTally{w: w} }

// Add counts the tokens of s attributable to the window, as
// TokensInWindow.
func (t *TokenTally) Add(s TokenSpan) {
	if math.IsNaN(s.FirstToken) || math.IsNaN(s.LastToken) {
		return
	}
	if t.w.contains(s.FirstToken) {
		t.in.add(float64(s.PromptTokens))
	}
	switch {
	case s.LastToken > s.FirstToken:
		share := t.w.overlap(s.FirstToken, s.LastToken) / (s.LastToken - s.FirstToken)
		t.out.add(float64(s.OutputTokens) * share)
	case t.w.contains(s.FirstToken):
		t.out.add(float64(s.OutputTokens))
	}
}

// AddInside counts tokens of spans known to lie inside the window (as the
// window's own sum of them, say), all of which TokensInWindow would count.
func (t *TokenTally) AddInside(output, prompt float64) {
	t.out.add(output)
	t.in.add(prompt)
}

// Totals returns the output and prompt tokens counted so far.
func (t *TokenTally) Totals() (output, prompt float64) { return t.out.value(), t.in.value() }

// Span is the lifetime [Start, End) of one request, in seconds from the
// window's origin. A request still running is given End = the window's End.
type Span struct {
	Start, End float64
}

// MeanConcurrency returns the time-weighted mean number of requests in
// flight over w: Σᵢ |[Startᵢ, Endᵢ) ∩ w| ÷ w.Length(). For example requests
// [0, 10) and [5, 15) over [0, 10] give (10 + 5)/10 = 1.5. Spans that are
// empty, reversed or NaN contribute nothing. ok is false when the window has
// no length.
func MeanConcurrency(spans []Span, w Window) (mean float64, ok bool) {
	b := NewBusyTally(w)
	for _, s := range spans {
		b.Add(s)
	}
	return b.Mean()
}

// BusyTally is MeanConcurrency over spans added one at a time, for callers
// that do not keep them: the same sums in the same order give the same
// mean.
type BusyTally struct {
	w    Window
	busy compensated
}

// NewBusyTally returns an empty tally of the time in flight within w.
func NewBusyTally(w Window) BusyTally { return BusyTally{w: w} }

// Add counts the part of s inside the window.
func (b *BusyTally) Add(s Span) { b.busy.add(b.w.overlap(s.Start, s.End)) }

// AddInside counts seconds in flight of spans known to lie inside the
// window (their summed lengths, say).
func (b *BusyTally) AddInside(seconds float64) { b.busy.add(seconds) }

// Mean returns the time-weighted mean number of requests in flight counted
// so far, as MeanConcurrency; ok is false when the window has no length.
func (b *BusyTally) Mean() (mean float64, ok bool) { return Rate(b.busy.value(), b.w) }
