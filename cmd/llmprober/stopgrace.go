package main

import (
	"time"

	"github.com/llmprober/llmprober/exporter"
)

// probeStopGrace is the time the probers are given to stop after a signal:
// their requests are cancelled at once, so this is a safety margin.
const probeStopGrace = 5 * time.Second

// stopGrace is how long a command may go on after SIGINT or SIGTERM before
// the process exits regardless: for the commands that stop on a signal,
// the HTTP server's shutdown bound plus the final flush's plus
// probeStopGrace; the others (check, rules, version) have nothing to
// finish and end at once.
func stopGrace(args []string, getenv func(string) string) time.Duration {
	if len(args) == 0 {
		return 0
	}
	switch args[0] {
	case "run", "demo", "sim", "bench":
		return exporter.DefaultServerLimits.ShutdownTimeout + exporter.FlushTimeout(getenv) + probeStopGrace
	}
	return 0
}
