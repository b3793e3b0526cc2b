package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/benchrun"
	"github.com/llmprober/llmprober/slo/window"
)

// benchBound is a --warmup or --cooldown: a duration, or a number of
// requests (count set).
type benchBound struct {
	d     time.Duration
	n     int
	count bool
}

// parseBenchBound parses the value raw of flag name for a run of the given
// length: a duration (30s), a request count (100) or a share of
// --max-duration (10%, which needs it set).
func parseBenchBound(name, raw string, length time.Duration, hasDuration bool) (benchBound, error) {
	if pct, ok := strings.CutSuffix(raw, "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || !(p >= 0 && p < 100) || !hasDuration {
			return benchBound{}, fmt.Errorf("%s %s: a share must be in [0%%, 100%%) of --max-duration, which must be set", name, raw)
		}
		return benchBound{d: time.Duration(p / 100 * float64(length))}, nil
	}
	if n, err := strconv.Atoi(raw); err == nil {
		if n < 0 || n > benchrun.MaxRequests {
			return benchBound{}, fmt.Errorf("%s %s: a request count must be within [0, %d]", name, raw, benchrun.MaxRequests)
		}
		return benchBound{n: n, count: n > 0}, nil
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d < 0 || d >= length {
		return benchBound{}, fmt.Errorf("%s %s: want a duration in [0, %s) like 30s, a request count like 100, or a share of --max-duration like 10%%",
			name, raw, length)
	}
	return benchBound{d: d}, nil
}

// checkBounds rejects a warmup and cooldown that leave no measurement
// window: durations that add up to the run, counts that add up to
// --max-requests.
func checkBounds(warmup, cooldown benchBound, length time.Duration, maxRequests int) error {
	if warmup.d+cooldown.d >= length {
		return fmt.Errorf("--warmup and --cooldown: %s and %s leave nothing of the run (%s)", warmup.d, cooldown.d, length)
	}
	if maxRequests > 0 && warmup.n+cooldown.n >= maxRequests {
		return fmt.Errorf("--warmup and --cooldown: %d and %d requests leave nothing of --max-requests %d", warmup.n, cooldown.n, maxRequests)
	}
	return nil
}

// spanned reports whether the benchmark's measurement window needs more
// than a rolling window read at the run's end: a cooldown, or a warmup
// counted in requests.
func (p *benchPlan) spanned() bool { return p.warmupN > 0 || p.cooldown.count || p.cooldown.d > 0 }

// measure returns the measurement window [measure_start, measure_end] of a
// run that ended at end: measure_start the store's measure start (the run's
// start + a warmup duration) or, for a warmup of N requests, the start of
// the (N+1)-th request to start; measure_end end − a cooldown duration or,
// for a cooldown of N requests, the start of the N-th request from the
// last to start. A window that would end before it starts is empty at
// measure_start. starts are the requests' starts, ascending.
func (p *benchPlan) measure(store *window.Store, starts []time.Time, end time.Time) *window.Snapshot {
	from, ok := store.MeasureStart()
	if !p.spanned() || !ok {
		return store.Snapshot(end, p.window)
	}
	if p.warmupN > 0 {
		from = end
		if p.warmupN < len(starts) {
			from = starts[p.warmupN]
		}
	}
	to := end.Add(-p.cooldown.d)
	if n := p.cooldown.n; p.cooldown.count {
		to = from
		if n <= len(starts) {
			to = starts[len(starts)-n]
		}
	}
	if to.Before(from) {
		to = from
	}
	return store.SnapshotSpan(from, to, end)
}

// sortedStarts returns the recorded request starts, ascending.
func (l *benchLimits) sortedStarts() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := slices.Clone(l.starts)
	slices.SortFunc(s, time.Time.Compare)
	return s
}

// boundsText describes the warmup and cooldown for the console: "1s",
// "100 requests", and ", before a cooldown of 2s" when there is one.
func (p *benchPlan) boundsText() string {
	text := func(d time.Duration, n int) string {
		if n > 0 {
			return fmt.Sprintf("%d requests", n)
		}
		return d.String()
	}
	s := text(p.warmup, p.warmupN)
	if p.cooldown.count || p.cooldown.d > 0 {
		s += ", before a cooldown of " + text(p.cooldown.d, p.cooldown.n)
	}
	return s
}
