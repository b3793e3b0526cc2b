package clock

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

var errCause = errors.New("deadline of the test")

func TestCancelAfterFires(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := CancelAfter(f, 5*time.Second, cancel, errCause)
	defer stop()
	f.Advance(4999 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatalf("cancelled after 4.999 s: %v", context.Cause(ctx))
	}
	f.Advance(time.Millisecond)
	<-ctx.Done()
	if got := context.Cause(ctx); !errors.Is(got, errCause) {
		t.Errorf("cause = %v, want %v", got, errCause)
	}
}

func TestCancelAfterStopped(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := CancelAfter(f, time.Second, cancel, errCause)
	stop()
	if n := f.Pending(); n != 0 {
		t.Errorf("%d timers pending after stop, want 0", n)
	}
	f.Advance(time.Hour)
	if ctx.Err() != nil {
		t.Errorf("cancelled after stop: %v", context.Cause(ctx))
	}
}

func TestCancelAfterZero(t *testing.T) {
	f := NewFake(time.Unix(0, 0))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	CancelAfter(f, 0, cancel, errCause)()
	if n := f.Pending(); n != 0 || ctx.Err() != nil {
		t.Errorf("d = 0: %d timers pending, ctx err %v; want none", n, ctx.Err())
	}
}

// TestCancelAfterRealClocks runs CancelAfter on the real clocks, which
// arm a runtime timer instead of a goroutine: it fires with the cause, a
// stop before the time leaves cancel uncalled, and a stop after it returns.
func TestCancelAfterRealClocks(t *testing.T) {
	for name, c := range map[string]Clock{"real": Real(), "precise": Precise()} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			start := time.Now()
			stop := CancelAfter(c, 20*time.Millisecond, cancel, errCause)
			<-ctx.Done()
			if waited := time.Since(start); waited < 20*time.Millisecond {
				t.Errorf("cancelled after %v, before its 20 ms", waited)
			}
			if got := context.Cause(ctx); !errors.Is(got, errCause) {
				t.Errorf("cause = %v, want %v", got, errCause)
			}
			stop()

			ctx2, cancel2 := context.WithCancelCause(context.Background())
			defer cancel2(nil)
			CancelAfter(c, 10*time.Millisecond, cancel2, errCause)()
			time.Sleep(30 * time.Millisecond)
			if ctx2.Err() != nil {
				t.Errorf("cancelled after stop: %v", context.Cause(ctx2))
			}
		})
	}
}

// TestCancelAfterFuncStopWaits holds stop to its promise when the timer
// fires as stop is called: once stop returns, cancel has run to its end
// or will never run.
func TestCancelAfterFuncStopWaits(t *testing.T) {
	for range 200 {
		var calls atomic.Int32
		cancel := func(error) { calls.Add(1) }
		stop := CancelAfter(Real(), time.Microsecond, cancel, errCause)
		time.Sleep(time.Duration(rand.IntN(3)) * time.Microsecond)
		stop()
		n := calls.Load()
		time.Sleep(50 * time.Microsecond)
		if later := calls.Load(); later != n || n > 1 {
			t.Fatalf("cancel called %d times by stop, %d after", n, later)
		}
	}
}
