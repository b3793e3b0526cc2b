package main

import (
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/exporter"
)

// Bounds of the HTTP server's connection cap, in connections.
const (
	minServerConnections = 8
	maxServerConns       = 1024
)

// fdReserve is the number of file descriptors kept for the process itself:
// standard streams, the listener, the poller, OTLP connections and the
// files read while running.
const fdReserve = 64

// probeDescriptors is the number of file descriptors the probes of targets
// may hold at once: per target, two per concurrent request (its connection
// and an idle one kept for reuse) and two for the readiness check.
func probeDescriptors(targets []config.Target) uint64 {
	var n uint64
	for i := range targets {
		n += 2*uint64(max(targets[i].Schedule.MaxConcurrency, 0)) + 2
	}
	return n
}

// serverConnections is the HTTP server's connection cap for a process
// allowed nofile open files: half of what is left once the probes'
// descriptors and fdReserve are set aside, between minServerConnections
// and maxServerConns; maxServerConns when nofile is unknown (0). So idle or
// slow clients of the server can never take the descriptors the probes
// need.
func serverConnections(nofile uint64, targets []config.Target) int {
	if nofile == 0 {
		return maxServerConns
	}
	need := probeDescriptors(targets) + fdReserve
	if nofile <= need {
		return minServerConnections
	}
	return int(min(max((nofile-need)/2, minServerConnections), maxServerConns))
}

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
