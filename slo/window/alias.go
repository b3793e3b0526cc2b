package window

import "github.com/llmprober/llmprober/probe"

// Metrics that usually repeat another. A request's time to first output
// token is its time to first token unless reasoning or tool-call tokens
// came first, and its streaming iterations are its output tokens when each
// token event carries one token and the usage report agrees. While every
// record of one status that a store holds has the same value (or none) of
// both metrics of a pair, each window's values of the two for that status
// are the same values, included by the same instants, in the same order in
// the index, so their summaries are the same figures: a snapshot computes
// the first and reuses its values and figures for the second.

// alias is a pair of metrics: m repeats of where no record held differs.
type alias struct{ m, of Metric }

// aliases are the pairs; of comes right before m in reporting order, so
// that a snapshot has just computed it, and its values are at hand.
var aliases = [...]alias{{TTFOT, TTFT}, {StreamingIterations, OutputTokens}}

// aliasBit returns the bit of alias i and status st in a mask of
// differences (entry.differs).
func aliasBit(i int, st uint8) uint8 { return 1 << (i*numStatuses + int(st)) }

// differs returns the bits (aliasBit) of the aliases whose two metrics e
// does not have alike, for its status (as entry.values defines them:
// defined for both or neither, and then equal, with the same deciding
// instant).
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
			bits |= aliasBit(i, e.status)
		}
	}
	return bits
}

// repeats returns the metric m repeats, when it is the second of an
// alias, and the statuses (bit st) in which no record held differs
// according to differ; 0 statuses otherwise.
func repeats(m Metric, differ uint8) (of Metric, alike uint8) {
	for i, a := range aliases {
		if a.m != m {
			continue
		}
		for st := range uint8(numStatuses) {
			if differ&aliasBit(i, st) == 0 {
				alike |= 1 << st
			}
		}
		return a.of, alike
	}
	return 0, 0
}

// allStatuses is the mask of every status.
const allStatuses = 1<<numStatuses - 1
