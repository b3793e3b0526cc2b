//go:build !unix

package benchrun

import "time"

// procUsage is the process's resource usage so far.
type procUsage struct {
	// cpu is user plus system CPU time.
	cpu time.Duration
	// peakRSS is the peak resident set size in bytes.
	peakRSS int64
}

// readUsage returns zero: resource usage is read on Unix systems only.
func readUsage() procUsage { return procUsage{} }
