package wiring

import (
	"github.com/llmprober/llmprober/config"
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

// ServerConnections is the HTTP server's connection cap for a process
// allowed nofile open files: half of what is left once the probes'
// descriptors and fdReserve are set aside, between minServerConnections
// and maxServerConns; maxServerConns when nofile is unknown (0). So idle or
// slow clients of the server can never take the descriptors the probes
// need.
func ServerConnections(nofile uint64, targets []config.Target) int {
	if nofile == 0 {
		return maxServerConns
	}
	need := probeDescriptors(targets) + fdReserve
	if nofile <= need {
		return minServerConnections
	}
	return int(min(max((nofile-need)/2, minServerConnections), maxServerConns))
}
