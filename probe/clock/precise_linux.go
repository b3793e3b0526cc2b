package clock

import (
	"syscall"
	"time"
)

// sleepUntil blocks the calling thread in nanosleep until at.
func sleepUntil(at time.Time) {
	for d := time.Until(at); d > 0; d = time.Until(at) {
		ts := syscall.NsecToTimespec(d.Nanoseconds())
		_ = syscall.Nanosleep(&ts, nil) // interrupted by a signal: sleep again
	}
}
