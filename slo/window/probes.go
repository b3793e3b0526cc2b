package window

import (
	"slices"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// Probes counts what the scheduler did in a window: requests that became
// due, were sent, or were dropped, each filed by the bucket of the instant
// it happened (so a window's counts cover the buckets it overlaps: up to
// one bucket, the longest window ÷ Buckets, before its start).
type Probes struct {
	// Scheduled counts the requests that became due.
	Scheduled int64
	// Sent counts the requests sent (started).
	Sent int64
	// Dropped counts the due requests never sent, by reason, one entry per
	// probe.DropReasons in that order.
	Dropped []int64
}

// DroppedBy returns the drops for reason r; 0 for an unknown reason.
func (p *Probes) DroppedBy(r probe.DropReason) int64 {
	if i := slices.Index(probe.DropReasons, r); i >= 0 && i < len(p.Dropped) {
		return p.Dropped[i]
	}
	return 0
}

// addSlot adds a slot's counts o to p.
func (p *Probes) addSlot(o *slotProbes) {
	p.Scheduled += int64(o.scheduled)
	p.Sent += int64(o.sent)
	if o.dropped != nil {
		p.add(&Probes{Dropped: *o.dropped})
	}
}

// add adds o to p.
func (p *Probes) add(o *Probes) {
	p.Scheduled += o.Scheduled
	p.Sent += o.Sent
	if len(p.Dropped) < len(o.Dropped) {
		p.Dropped = append(p.Dropped, make([]int64, len(o.Dropped)-len(p.Dropped))...)
	}
	for i, n := range o.Dropped {
		p.Dropped[i] += n
	}
}

// probeEvent is one scheduler event: due, or dropped for a reason.
type probeEvent struct {
	drop   probe.DropReason
	isDrop bool
}

// countProbe files ev at the store clock's now, once measuring was
// scheduled; an event before the measure start (in the warmup) falls in no
// window.
func (s *Store) countProbe(target string, ev probeEvent) {
	if target != s.target {
		return
	}
	now := s.set.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(now)
	if ev.isDrop {
		s.hist.dropped(now, ev.drop)
	} else {
		s.hist.scheduled(now)
	}
	sl := s.ring.create(s.ring.bucket(int64(now.Sub(s.ring.origin))))
	if sl == nil {
		return
	}
	if !ev.isDrop {
		incr(&sl.probes.scheduled)
		return
	}
	if sl.probes.dropped == nil {
		d := make([]int64, len(probe.DropReasons))
		sl.probes.dropped = &d
	}
	if i := slices.Index(probe.DropReasons, ev.drop); i >= 0 {
		(*sl.probes.dropped)[i]++
	}
}

// zeroProbes returns counts of nothing, one drop entry per reason.
func zeroProbes() Probes { return Probes{Dropped: make([]int64, len(probe.DropReasons))} }

// probesSince returns the counts of the buckets from the one holding
// start to the one holding now (ns from the origin); r's lock is held.
func (r *ring) probesSince(start, now int64) Probes {
	out := zeroProbes()
	for n := r.bucket(start); n <= r.bucket(now); n++ {
		if sl := r.get(n); sl != nil {
			out.addSlot(&sl.probes)
		}
	}
	return out
}

// sinceOrigin is the time from the origin to t, in ns.
func sinceOrigin(origin, t time.Time) int64 { return int64(t.Sub(origin)) }
