//go:build unix

package benchrun

import (
	"runtime"
	"syscall"
	"time"
)

// procUsage is the process's resource usage so far.
type procUsage struct {
	// cpu is user plus system CPU time.
	cpu time.Duration
	// peakRSS is the peak resident set size in bytes.
	peakRSS int64
}

// readUsage returns the process's resource usage, zero when unavailable.
func readUsage() procUsage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return procUsage{}
	}
	u := procUsage{
		cpu:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		peakRSS: int64(ru.Maxrss),
	}
	if runtime.GOOS != "darwin" && runtime.GOOS != "ios" {
		u.peakRSS *= 1024 // kibibytes everywhere but Darwin
	}
	return u
}
