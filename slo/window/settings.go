package window

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo"
)

// Defaults of Settings.
const (
	// DefaultConfidence is the default level of the confidence intervals.
	DefaultConfidence = 0.95
	// DefaultSampleCap is the default number of records a target keeps
	// exactly (Settings.SampleCap).
	DefaultSampleCap = 100000
	// MaxSampleCap bounds Settings.SampleCap: each bucket keeps at most
	// MaxSampleCap ÷ Buckets records.
	MaxSampleCap = 10000000
	// DefaultCacheTTL is how long a snapshot is reused by default.
	DefaultCacheTTL = time.Second
	// Buckets is the number of time buckets the longest window is divided
	// into; the bucket width is the longest window ÷ Buckets.
	Buckets = 720
)

// DefaultWindows returns the default window lengths: 1m, 5m and 1h.
func DefaultWindows() []time.Duration {
	return []time.Duration{time.Minute, 5 * time.Minute, time.Hour}
}

// Settings configures a Store.
type Settings struct {
	// Windows are the window lengths, each > 0 and distinct; the order is
	// kept. Empty means DefaultWindows.
	Windows []time.Duration
	// Confidence is the level of the confidence intervals, in (0, 1); 0
	// turns the intervals off. DefaultSettings sets DefaultConfidence.
	Confidence float64
	// Warmup is excluded after the prober starts: measuring begins at the
	// prober start + Warmup. 0 means none; negative is an error.
	Warmup time.Duration
	// SampleCap bounds the records kept per target: each of the Buckets
	// buckets keeps at most SampleCap ÷ Buckets of them exactly (see the
	// package documentation). 0 means DefaultSampleCap; otherwise from
	// Buckets to MaxSampleCap.
	SampleCap int
	// CacheTTL is how long a computed snapshot is reused. 0 means
	// DefaultCacheTTL; negative turns the cache off.
	CacheTTL time.Duration
	// Seed seeds the reservoir sampling of overflowing buckets, so that
	// the same requests give the same sample.
	Seed uint64
	// Clock is the clock shared with the prober. Nil means clock.Real().
	Clock clock.Clock
	// HistoryInterval is the length of one point of the history (see
	// Store.History), at least 1s; 0 means DefaultHistoryInterval.
	HistoryInterval time.Duration
	// HistoryRetention is the span of the history, a multiple of
	// HistoryInterval of at most 100 000 points; 0 means
	// DefaultHistoryRetention.
	HistoryRetention time.Duration
	// Objectives are the target's objective sets, at most MaxObjectives
	// with distinct names: each window reports its attainment and goodput
	// under each (Snapshot.Objectives). None by default.
	Objectives []slo.Objective
}

// DefaultSettings returns the default settings: windows 1m, 5m, 1h,
// confidence 0.95, no warmup, a cap of 100 000 records, a 1 s cache and the
// real clock.
func DefaultSettings() Settings {
	return Settings{
		Windows: DefaultWindows(), Confidence: DefaultConfidence, SampleCap: DefaultSampleCap,
		CacheTTL: DefaultCacheTTL, Clock: clock.Real(),
	}
}

// withDefaults fills the zero-valued settings that have a default and
// checks the rest.
func (s Settings) withDefaults() (Settings, error) {
	if len(s.Windows) == 0 {
		s.Windows = DefaultWindows()
	}
	s.Windows = slices.Clone(s.Windows)
	s.Objectives = slices.Clone(s.Objectives)
	if s.SampleCap == 0 {
		s.SampleCap = DefaultSampleCap
	}
	if s.CacheTTL == 0 {
		s.CacheTTL = DefaultCacheTTL
	}
	if s.Clock == nil {
		s.Clock = clock.Real()
	}
	if s.HistoryInterval == 0 {
		s.HistoryInterval = DefaultHistoryInterval
	}
	if s.HistoryRetention == 0 {
		s.HistoryRetention = DefaultHistoryRetention
	}
	return s, s.validate()
}

// validate reports the first problem with s.
func (s Settings) validate() error {
	for i, w := range s.Windows {
		if w <= 0 {
			return fmt.Errorf("window %s: must be > 0", w)
		}
		if j := slices.Index(s.Windows[:i], w); j >= 0 {
			return fmt.Errorf("window %s: duplicate", Name(w))
		}
	}
	if len(s.Objectives) > MaxObjectives {
		return fmt.Errorf("objectives: at most %d objective sets", MaxObjectives)
	}
	for i, o := range s.Objectives {
		if slices.IndexFunc(s.Objectives[:i], func(p slo.Objective) bool { return p.Name == o.Name }) >= 0 {
			return fmt.Errorf("objective %q: duplicate name", o.Name)
		}
	}
	switch {
	case math.IsNaN(s.Confidence) || s.Confidence < 0 || s.Confidence >= 1:
		return fmt.Errorf("confidence %v: must be in (0, 1), or 0 for no intervals", s.Confidence)
	case s.Warmup < 0:
		return errors.New("warmup: must be >= 0")
	case s.SampleCap < Buckets:
		return fmt.Errorf("sample cap %d: must be at least %d", s.SampleCap, Buckets)
	case s.HistoryInterval < time.Second:
		return fmt.Errorf("history interval %s: must be at least 1s", s.HistoryInterval)
	case s.HistoryRetention < s.HistoryInterval || s.HistoryRetention%s.HistoryInterval != 0:
		return fmt.Errorf("history retention %s: must be a multiple of the interval %s", s.HistoryRetention, s.HistoryInterval)
	case s.HistoryRetention/s.HistoryInterval > maxHistoryPoints:
		return fmt.Errorf("history retention %s: at most %d intervals of %s", s.HistoryRetention, maxHistoryPoints, s.HistoryInterval)
	case s.SampleCap > MaxSampleCap:
		return fmt.Errorf("sample cap %d: must be at most %d", s.SampleCap, MaxSampleCap)
	}
	return nil
}

// Name is a window's name: its length as the shortest Go duration string,
// "1m" for a minute, "1h" for an hour, "1m30s", "500ms".
func Name(w time.Duration) string {
	s := w.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// ParseName returns the window length a name stands for: any Go duration
// string, so "1m" and "60s" are the same window.
func ParseName(name string) (time.Duration, error) {
	d, err := time.ParseDuration(name)
	if err != nil {
		return 0, fmt.Errorf("could not parse window %q: %w", name, err)
	}
	return d, nil
}
