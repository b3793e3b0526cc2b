package probe

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/llmprober/llmprober/probe/trace"
)

// Replay is the open-loop strategy that replays a trace's arrival times:
// row i of the trace is due at its timestamp × TimeScale after the run's
// start (a scale of 2 replays the trace at half speed, 0.5 at double speed).
// Request n is row n mod R of the R rows, in the pass ⌊n/R⌋. Without Loop the
// strategy stops after the last row. With Loop each pass starts P × TimeScale
// after the previous one, where P is the last timestamp plus the mean gap
// between consecutive timestamps, so the gap from a pass's last row to the
// next pass's first row is the trace's mean gap (plus its first timestamp).
//
// A row without a timestamp has no arrival time: it is due as soon as the
// rows before it were issued and a concurrency slot is free (the prober
// waits for one), and gets no targeted start (Decision.Unscheduled). A trace
// without any timestamp loops at once: each pass follows the previous one.
//
// For a later turn of a conversation, the prober moves the targeted start
// with the prior turn (see Turn.Relative).
type Replay struct {
	at        []time.Duration // each row's timestamp; -1 when it has none
	timeScale float64
	loop      bool
	period    time.Duration // length of one pass, unscaled
}

// NewReplay returns the replay strategy of tr; timeScale must be positive
// and finite, and the timestamps of a looping trace, if it has any, must
// span a positive time.
func NewReplay(tr *trace.Trace, timeScale float64, loop bool) (*Replay, error) {
	if tr == nil || len(tr.Requests) == 0 {
		return nil, errors.New("could not replay trace: it holds no requests")
	}
	if !(timeScale > 0) || math.IsInf(timeScale, 0) {
		return nil, fmt.Errorf("time scale must be a positive number, got %v", timeScale)
	}
	r := &Replay{at: make([]time.Duration, len(tr.Requests)), timeScale: timeScale, loop: loop, period: tr.Period()}
	for i, req := range tr.Requests {
		r.at[i] = -1
		if req.HasTimestamp {
			r.at[i] = req.Timestamp
		}
	}
	if loop && r.period <= 0 && tr.Timed() > 0 {
		return nil, fmt.Errorf("could not loop trace %s: %s", tr.File, trace.NoSpan)
	}
	return r, nil
}

// Name implements Strategy.
func (*Replay) Name() string { return "trace" }

// HasSchedule implements Strategy: the trace's timestamps are an arrival schedule.
func (*Replay) HasSchedule() bool { return true }

// Next implements Strategy: see Replay for the schedule.
func (r *Replay) Next(n uint64) Decision {
	rows := uint64(len(r.at))
	pass, i := n/rows, n%rows
	if pass > 0 && !r.loop {
		return Decision{Kind: Stop}
	}
	if r.at[i] < 0 {
		return Decision{Kind: Due, Unscheduled: true}
	}
	seconds := (float64(pass)*r.period.Seconds() + r.at[i].Seconds()) * r.timeScale
	return Decision{Kind: Due, At: offset(seconds)}
}

// Issue implements Strategy; an open-loop strategy keeps no state.
func (*Replay) Issue(uint64, Decision) {}

// Completed implements Strategy; an open-loop strategy ignores completions.
func (*Replay) Completed(uint64, *Record, time.Duration) {}
