package clock

import (
	"context"
	"errors"
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
