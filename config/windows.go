package config

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Defaults and bounds of the rolling-window settings.
const (
	// DefaultConfidence is Config.Confidence's default.
	DefaultConfidence = 0.95
	// DefaultWindowSampleCap is Config.WindowSampleCap's default, in records.
	DefaultWindowSampleCap = 100000
	// MinWindowSampleCap is the smallest WindowSampleCap: one record for
	// each of the 720 buckets of the longest window.
	MinWindowSampleCap = 720
	// LimitWindowSampleCap bounds WindowSampleCap, in records (80 bytes
	// each, per target).
	LimitWindowSampleCap = 10000000
	// LimitWindows bounds the number of windows, which multiplies the
	// series of every window gauge.
	LimitWindows = 4
	// MinWindow is the shortest window.
	MinWindow = time.Second
)

// DefaultWindows returns Config.Windows's default: 1m, 5m and 1h.
func DefaultWindows() []time.Duration {
	return []time.Duration{time.Minute, 5 * time.Minute, time.Hour}
}

// ConfidenceLevel returns the confidence level of the intervals, or 0 when
// they are off.
func (c *Config) ConfidenceLevel() float64 {
	if c.Confidence == nil {
		return 0
	}
	return *c.Confidence
}

// applyWindowDefaults fills the unset window settings. A confidence written
// as null stays nil: intervals off.
func (c *Config) applyWindowDefaults() {
	if len(c.Windows) == 0 && !c.src.isSet("windows") {
		c.Windows = DefaultWindows()
	}
	if c.Confidence == nil && !c.src.isSet("confidence") {
		v := DefaultConfidence
		c.Confidence = &v
	}
	if c.WindowSampleCap == 0 && !c.src.isSet("window_sample_cap") {
		c.WindowSampleCap = DefaultWindowSampleCap
	}
	c.applySeriesDefaults()
}

// validateWindows records the problems of the window settings.
func (c *Config) validateWindows(col *collector) {
	switch {
	case len(c.Windows) == 0 && c.src.line("windows[0]") == 0:
		// (A list whose items could not be decoded has had them reported.)
		col.add("windows", "must list at least one window, such as [1m, 5m, 1h]")
	case len(c.Windows) > LimitWindows:
		col.add("windows", "must list at most %d windows", LimitWindows)
	}
	seen := map[time.Duration]int{}
	for i, w := range c.Windows {
		path := "windows[" + strconv.Itoa(i) + "]"
		first, dup := seen[w]
		switch {
		case w <= 0:
			col.add(path, "must be > 0")
		case w < MinWindow:
			col.add(path, "must be at least %s", MinWindow)
		case dup:
			col.add(path, "duplicate window %s (also windows[%d])", w, first)
		default:
			seen[w] = i
		}
	}
	if p := c.Confidence; p != nil && (math.IsNaN(*p) || *p <= 0 || *p >= 1) {
		col.add("confidence", "must be between 0 and 1 (exclusive), such as 0.95, or null to turn intervals off")
	}
	if c.Warmup < 0 {
		col.add("warmup", "must be >= 0")
	}
	if c.WindowSampleCap < MinWindowSampleCap || c.WindowSampleCap > LimitWindowSampleCap {
		col.add("window_sample_cap", "must be between %d and %d records", MinWindowSampleCap, LimitWindowSampleCap)
	}
	c.validateSeries(col)
}

// nullRejected reports whether a null at path is an error rather than
// "use the default", and the message: a window or the warmup written as
// null is almost certainly a mistake, and taking the default silently would
// hide it.
func nullRejected(path string) (msg string, rejected bool) {
	switch {
	case path == "warmup":
		return "must be a duration such as 30s or 0s, not null (leave it out for no warmup)", true
	case strings.HasPrefix(path, "windows[") && strings.HasSuffix(path, "]"):
		return "must be a duration such as 1m, not null", true
	}
	if msg, rejected := seriesNullRejected(path); rejected {
		return msg, true
	}
	return objectiveNullRejected(path)
}
