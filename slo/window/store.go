package window

import (
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// Store is one target's rolling windows. It implements probe.Observer for
// that target's events (events of other targets are ignored) and is safe
// for concurrent use; recording never waits for a snapshot's computation.
type Store struct {
	target string
	set    Settings

	mu      sync.Mutex // guards ring, running, codes, hist
	ring    *ring      // nil until measuring is scheduled to begin
	running []time.Time
	codes   codeTable
	hist    history

	index valueIndex // every kept value by metric, in order; serializes computations
	cache cache      // the last snapshots, one per window

	// retargeted holds the objective sets Retarget set, nil until then:
	// the same names and thresholds as set.Objectives, their attainment
	// and period changed.
	retargeted atomic.Pointer[[]slo.Objective]
}

var _ probe.Observer = (*Store)(nil)

// NewStore returns the windows of target with settings s (zero fields take
// their defaults; see Settings).
func NewStore(target string, s Settings) (*Store, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("could not create windows of %s: %w", target, err)
	}
	seed := fnv.New64a()
	_, _ = seed.Write([]byte(target))
	return &Store{target: target, set: s, index: valueIndex{subs: newSubIndexes(s.Windows)},
		hist: newHistory(s.HistoryInterval, s.HistoryRetention, len(s.Objectives), s.Seed^seed.Sum64())}, nil
}

// Target returns the target's name.
func (s *Store) Target() string { return s.target }

// Windows returns the window lengths, in configured order.
func (s *Store) Windows() []time.Duration { return slices.Clone(s.set.Windows) }

// Objectives returns the objective sets whose attainment the windows
// report, in configured order.
func (s *Store) Objectives() []slo.Objective { return slices.Clone(s.objectives()) }

// objectives returns the objective sets, as Retarget last set them.
func (s *Store) objectives() []slo.Objective {
	if p := s.retargeted.Load(); p != nil {
		return *p
	}
	return s.set.Objectives
}

// Retarget changes the attainment and period of the objective sets, which
// the snapshots report, keeping every record: objectives must have the
// names and thresholds of the store's, in order, else it is an error and
// nothing changes.
func (s *Store) Retarget(objectives []slo.Objective) error {
	if len(objectives) != len(s.set.Objectives) {
		return fmt.Errorf("could not retarget the windows of %s: %d objective sets, not %d", s.target, len(objectives), len(s.set.Objectives))
	}
	for i, o := range objectives {
		if was := s.set.Objectives[i]; o.Name != was.Name || !slices.Equal(o.Thresholds, was.Thresholds) {
			return fmt.Errorf("could not retarget the windows of %s: objective set %d changed its name or thresholds", s.target, i)
		}
	}
	c := slices.Clone(objectives)
	s.retargeted.Store(&c)
	return nil
}

// Confidence returns the level of the intervals, or 0 when they are off.
func (s *Store) Confidence() float64 { return s.set.Confidence }

// MeasureStart returns when measuring begins (or began): the prober start
// plus the warmup; ok is false before the prober started.
func (s *Store) MeasureStart() (t time.Time, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ring == nil {
		return time.Time{}, false
	}
	return s.ring.origin, true
}

// begin schedules the measure start at now + warmup, once; s.mu is held.
func (s *Store) begin(now time.Time) {
	if s.ring != nil {
		return
	}
	longest := slices.Max(s.set.Windows)
	seed := fnv.New64a()
	_, _ = seed.Write([]byte(s.target))
	s.ring = newRing(now.Add(s.set.Warmup), longest, s.set.SampleCap, len(s.set.Objectives), s.set.Seed^seed.Sum64())
}

// Scheduled implements probe.Observer: a request became due now.
func (s *Store) Scheduled(target string) { s.countProbe(target, probeEvent{}) }

// Dropped implements probe.Observer: a due request was dropped now.
func (s *Store) Dropped(target string, reason probe.DropReason) {
	s.countProbe(target, probeEvent{isDrop: true, drop: reason})
}

// State implements probe.Observer: the first time the target is ready, the
// prober starts probing, and measuring begins after the warmup.
func (s *Store) State(target string, state probe.TargetState, _ time.Duration) {
	if target != s.target || state != probe.StateReady {
		return
	}
	now := s.set.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(now)
}

// Started implements probe.Observer: the request is in flight from now.
func (s *Store) Started(target string) {
	if target != s.target {
		return
	}
	now := s.set.Clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(now)
	s.running = append(s.running, now)
	s.hist.started(now)
	if sl := s.ring.create(s.ring.bucket(sinceOrigin(s.ring.origin, now))); sl != nil {
		incr(&sl.probes.sent)
	}
}

// Finished implements probe.Observer: rec is added to the windows and is
// no longer in flight. A record without an end is taken to end now.
func (s *Store) Finished(rec *probe.Record) {
	if rec.Target != s.target {
		return
	}
	now := s.set.Clock.Now()
	end := rec.End
	if end.IsZero() {
		end = now
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.begin(now)
	s.stopRunning(rec.RequestStart)
	e := newEntry(rec, s.ring.origin, end)
	e.code = s.codes.number(rec.ErrorCode)
	if rec.End.IsZero() {
		withEnd := *rec
		withEnd.End = end
		rec = &withEnd
	}
	e.evaluated, e.conforming = verdicts(s.set.Objectives, rec)
	s.hist.finished(now, &e, rec)
	s.ring.add(e)
}

// stopRunning removes the in-flight request that started last at or
// before start (the earliest one when none did); s.mu is held.
func (s *Store) stopRunning(start time.Time) {
	if len(s.running) == 0 {
		return
	}
	best := -1
	for i, t := range s.running {
		if !t.After(start) && (best < 0 || t.After(s.running[best])) {
			best = i
		}
	}
	if best < 0 {
		best = 0
		for i, t := range s.running {
			if t.Before(s.running[best]) {
				best = i
			}
		}
	}
	s.running = slices.Delete(s.running, best, best+1)
}
