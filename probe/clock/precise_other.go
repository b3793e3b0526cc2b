//go:build !linux

package clock

import "time"

// sleepUntil waits until at with the runtime's own timers.
func sleepUntil(at time.Time) {
	if d := time.Until(at); d > 0 {
		time.Sleep(d)
	}
}
