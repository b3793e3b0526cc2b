package window

import (
	"slices"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/stats"
)

// scheduled counts a request that became due at now.
func (h *history) scheduled(now time.Time) {
	h.advance(now)
	h.count(h.lay.scheduled, 1)
}

// dropped counts a due request dropped at now for reason r.
func (h *history) dropped(now time.Time, r probe.DropReason) {
	h.advance(now)
	if i := slices.Index(probe.DropReasons, r); i >= 0 {
		h.count(h.lay.dropped+i, 1)
	}
}

// started counts a request sent at now, in flight from now.
func (h *history) started(now time.Time) {
	h.advance(now)
	h.inflight++
	h.count(h.lay.sent, 1)
}

// finished files the request of e and rec, which ended (was recorded) at
// now: its status, error type, output tokens, verdicts and quantities.
func (h *history) finished(now time.Time, e *entry, rec *probe.Record) {
	h.advance(now)
	h.inflight = max(h.inflight-1, 0)
	l := h.lay
	h.count(l.requests+int(e.status), 1)
	if e.errorType > 0 && int(e.errorType) < len(errorTypes) {
		h.count(l.errors+int(e.errorType)-1, 1)
	}
	output, _ := e.tokens()
	h.count(l.output, uint32(min(output, 1<<32-1)))
	for i := range h.nobj {
		if e.evaluated&(1<<i) != 0 {
			h.count(l.slo+2*i, 1)
		}
		if e.conforming&(1<<i) != 0 {
			h.count(l.slo+2*i+1, 1)
		}
	}
	vs, ok := values(rec)
	for q, m := range HistoryQuantities {
		if ok[m] && (m == DispatchDelay || e.status == uint8(stats.StatusSuccessful)) {
			h.open.samples[q].add(vs[m].v, vs[m].w, h.open.rng)
		}
	}
}
