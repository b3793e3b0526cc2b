package benchrun

import (
	"time"

	"github.com/llmprober/llmprober/probe"
)

// Collector is the probe.Observer that keeps the pacing report's sample of
// every request (a benchmark of a configured target uses it beside its
// windows).
type Collector struct{ c *benchCollector }

var _ probe.Observer = Collector{}

// NewCollector returns a Collector with room for expected samples.
func NewCollector(expected int) Collector { return Collector{newBenchCollector(expected)} }

// Scheduled implements probe.Observer.
func (c Collector) Scheduled(target string) { c.c.Scheduled(target) }

// Dropped implements probe.Observer.
func (c Collector) Dropped(target string, reason probe.DropReason) { c.c.Dropped(target, reason) }

// Started implements probe.Observer.
func (c Collector) Started(target string) { c.c.Started(target) }

// State implements probe.Observer.
func (c Collector) State(target string, state probe.TargetState, waited time.Duration) {
	c.c.State(target, state, waited)
}

// Finished implements probe.Observer.
func (c Collector) Finished(rec *probe.Record) { c.c.Finished(rec) }

// Result is what was collected as the input of NewReport: rate is the
// requested rate (0 without one), window how long requests were sent, cpu
// and peakRSS the process's usage (ReadUsage).
func (c Collector) Result(rate float64, window, cpu time.Duration, peakRSS int64) Result {
	return c.c.run(rate, window, cpu, peakRSS)
}

// ReadUsage returns the process's user plus system CPU time so far and its
// peak resident set size in bytes; zero where unavailable.
func ReadUsage() (cpu time.Duration, peakRSS int64) {
	u := readUsage()
	return u.cpu, u.peakRSS
}

// Text shows the percentiles in milliseconds: "p50 0.267 ms, p99 9.712 ms,
// max 14.659 ms (n=200)", or "none".
func (d Delays) Text() string { return d.text() }
