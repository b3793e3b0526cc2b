package window

import "github.com/llmprober/llmprober/probe"

// Metrics that usually repeat another. A request's time to first output
// token is its time to first token unless reasoning or tool-call tokens
// came first, and its streaming iterations are its output tokens when each
// token event carries one token and the usage report agrees. While every
// record a store holds has the same value (or none) of both metrics of a
// pair, each window's values of the two are the same values, included by
// the same instants, in the same order in the index, so their summaries
// are the same figures: a snapshot computes the first and copies it.

// alias is a pair of metrics: m repeats of while no record held differs.
type alias struct{ m, of Metric }

// aliases are the pairs; of precedes m in reporting order, so that a
// snapshot has computed it first.
var aliases = [...]alias{{TTFOT, TTFT}, {StreamingIterations, OutputTokens}}

// differs returns the bits of the aliases whose two metrics e does not have
// alike (as entry.values defines them: defined for both or neither, and
// then equal, with the same deciding instant).
func (e *entry) differs() uint8 {
	bits := uint8(0)
	for i, a := range aliases {
		var same bool
		switch a.m {
		case TTFOT:
			same = e.firstOutput == e.firstToken
		case StreamingIterations:
			stream, known := e.flags&flagStream != 0, e.tokenSource(e.outputFrom) != probe.TokensUnknown
			same = stream == known && (!stream || e.iterations == e.outputTokens)
		}
		if !same {
			bits |= 1 << i
		}
	}
	return bits
}

// repeats returns the metric whose summaries m repeats when none of the
// records held differs in their alias (the bit of differs), or false.
func repeats(m Metric, differ uint8) (Metric, bool) {
	for i, a := range aliases {
		if a.m == m && differ&(1<<i) == 0 {
			return a.of, true
		}
	}
	return 0, false
}
