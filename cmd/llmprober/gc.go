package main

import (
	"log/slog"
	"runtime/debug"
)

// daemonGCPercent is the garbage collector's target (GOGC) of run and demo
// when the environment sets none: the heap may grow by half its live size
// between collections instead of doubling. A daemon's live heap is nearly
// all its windows' records and index, bounded by window_sample_cap, so the
// default target's headroom would be as large again in resident memory;
// at 50 the collector runs about twice as often, for little CPU, since
// those records hold no pointers to scan (see docs/measurement.md,
// "Memory and approximate figures").
const daemonGCPercent = 50

// daemonGC sets the collector's target of a daemon to daemonGCPercent
// unless GOGC is in environ, logs the target in force, and returns a
// function restoring the previous one (for a run inside a test process).
func daemonGC(environ map[string]string, logger *slog.Logger) (restore func()) {
	if v, set := environ["GOGC"]; set {
		logger.Info("garbage collector target from GOGC", "gogc", v)
		return func() {}
	}
	prev := debug.SetGCPercent(daemonGCPercent)
	logger.Info("garbage collector target", "gogc", daemonGCPercent)
	return func() { debug.SetGCPercent(prev) }
}
