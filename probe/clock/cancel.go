package clock

import (
	"context"
	"time"
)

// CancelAfter calls cancel(cause) once d has passed on c, unless the
// returned stop is called first. stop stops the timer and waits for its
// goroutine, so none is left behind; a d ≤ 0 arms nothing.
func CancelAfter(c Clock, d time.Duration, cancel context.CancelCauseFunc, cause error) (stop func()) {
	if d <= 0 {
		return func() {}
	}
	t := c.NewTimer(d)
	quit, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-t.C():
			cancel(cause)
		case <-quit:
		}
	}()
	return func() {
		t.Stop()
		close(quit)
		<-exited
	}
}
