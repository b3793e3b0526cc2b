package window

import (
	"slices"
	"sync"
	"time"

	"github.com/llmprober/llmprober/slo/stats"
)

// Summary is the distribution of one metric for one status in a window.
type Summary struct {
	// Summary holds the figures, in the metric's unit. For a weighted
	// metric (ITL, TPOT) Count is the summed weight, Mean, Median, Variance
	// and StdDev are token-weighted, and there is no Sum, Mode or interval.
	stats.Summary
	// Weighted reports a token-weighted metric.
	Weighted bool
	// Approximate reports that Median, Mode and the percentiles were
	// estimated from a sample (their intervals are then absent); the other
	// figures are exact. See the package documentation for the error bound.
	Approximate bool
}

// Snapshot is one window's figures at one instant. It is shared between
// callers and must not be modified.
type Snapshot struct {
	// Target is the target's name.
	Target string
	// Window is the configured length W.
	Window time.Duration
	// Start and End are the bounds used, [Start, End]: End is the instant
	// of the snapshot (shared by the target's windows taken together),
	// Start is max(End − W, measure start), aligned down to the bucket grid
	// when Approximate; a window longer than the time measured starts at
	// exactly the measure start. Both are wall-clock instants (without a
	// monotonic reading): the measure start's plus the time measured since,
	// so End − Start is exactly Length, the length rates divide by.
	// Before measuring began both are End and carry no meaning.
	Start, End time.Time
	// Measuring is false before the measure start (the prober has not
	// started, or the warmup is not over): then every figure is empty
	// except InFlight.
	Measuring bool
	// Approximate reports that the window read a bucket that keeps only a
	// sample: Start is aligned to the grid, and the summaries whose records
	// are not all present are Approximate.
	Approximate bool
	// Confidence is the level of the intervals, 0 when they are off.
	Confidence float64
	// Requests counts the finished requests that ended in the window
	// (and, read by SnapshotSpan, those that ended after it having
	// started by its end).
	Requests stats.ByStatus[int64]
	// InFlight is the number of requests running at End, also before
	// measuring began (during the warmup).
	InFlight int
	// RequestRate is Requests ÷ the effective length, in requests per
	// second; nil when the window has no length yet.
	RequestRate stats.ByStatus[*float64]
	// OutputTokens and PromptTokens are the tokens attributed to the window
	// by event time (fractional where a request straddles a bound).
	OutputTokens, PromptTokens stats.ByStatus[float64]
	// OutputTokenRate is OutputTokens ÷ the effective length, and
	// TotalTokenRate (OutputTokens + PromptTokens) ÷ the same, in tokens
	// per second; nil when the window has no length yet.
	OutputTokenRate, TotalTokenRate stats.ByStatus[*float64]
	// Concurrency is the time-weighted mean number of requests in flight
	// over the window; nil when it has no length yet.
	Concurrency *float64
	// Objectives are the attainment and goodput under each of the target's
	// objective sets, in configured order (counts 0 and figures nil before
	// measuring began).
	Objectives []Attainment
	// Probes are the requests that became due, were sent or were dropped
	// in the window's buckets (see Probes); zero before measuring began.
	Probes Probes

	summaries [numMetrics]stats.ByStatus[Summary]
	origin    time.Time
	// startOff and endOff are Start and End in ns from origin, horizonOff
	// the last end of a request counted (endOff but for SnapshotSpan).
	startOff, endOff, horizonOff int64
	// parts are the window's buckets, for Records.
	parts   []part
	running []time.Time
	codes   codeTable

	recordsOnce sync.Once
	records     []Record
}

// Name returns the window's name, such as "1m".
func (s *Snapshot) Name() string { return Name(s.Window) }

// Length returns the effective length End − Start.
func (s *Snapshot) Length() time.Duration { return s.End.Sub(s.Start) }

// Summary returns metric m's summaries by status.
func (s *Snapshot) Summary(m Metric) stats.ByStatus[Summary] {
	if !m.valid() {
		return stats.ByStatus[Summary]{}
	}
	return s.summaries[m]
}

// Running returns the start times of the requests in flight at End, which
// count toward Concurrency.
func (s *Snapshot) Running() []time.Time { return slices.Clone(s.running) }

// cache holds the last snapshots of every window, all taken at one instant.
type cache struct {
	mu    sync.Mutex
	at    time.Time
	snaps []*Snapshot // one per window, in configured order; nil until taken
}

// Snapshot returns window w's figures at now, taken with the other windows
// as by Snapshots; nil when w is not one of the store's windows. With the
// cache off only w is computed. now must not precede the end of a request
// already recorded: such a request would count as ended in the window.
func (s *Store) Snapshot(now time.Time, w time.Duration) *Snapshot {
	i := slices.Index(s.set.Windows, w)
	if i < 0 {
		return nil
	}
	if s.set.CacheTTL < 0 {
		return s.snapshotsAt(now, []time.Duration{w})[0]
	}
	return s.Snapshots(now)[i]
}

// Snapshots returns every window's figures at one instant, in configured
// order: now, or the instant of the last snapshots (which are reused) when
// now lies less than the cache TTL before or after it. All of them share
// End, and a window longer than the time measured starts exactly at the
// measure start.
func (s *Store) Snapshots(now time.Time) []*Snapshot {
	c := &s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snaps != nil && s.set.CacheTTL > 0 && absDuration(now.Sub(c.at)) < s.set.CacheTTL {
		return slices.Clone(c.snaps)
	}
	snaps := s.snapshotsAt(now, s.set.Windows)
	if s.set.CacheTTL > 0 {
		c.at, c.snaps = now, snaps
	}
	return slices.Clone(snaps)
}

// Current returns window w's snapshot at the store clock's now.
func (s *Store) Current(w time.Duration) *Snapshot {
	return s.Snapshot(s.set.Clock.Now(), w)
}

// CurrentAll returns every window's snapshot at the store clock's now, in
// configured order, as by Snapshots.
func (s *Store) CurrentAll() []*Snapshot {
	return s.Snapshots(s.set.Clock.Now())
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
