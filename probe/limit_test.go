package probe

import (
	"testing"
	"time"
)

// TestLimited: a constant 10 req/s limited to 3 requests answers the slots
// 0, 100 and 200 ms, then Stop; a concurrent strategy of 4 streams keeps
// its streams under the limit.
func TestLimited(t *testing.T) {
	c, err := NewConstant(10, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := &Limited{Strategy: c, Max: 3}
	for n, want := range []Decision{{At: 0}, {At: 100 * time.Millisecond}, {At: 200 * time.Millisecond}, {Kind: Stop}, {Kind: Stop}} {
		if got := l.Next(uint64(n)); got != want {
			t.Errorf("Next(%d) = %+v, want %+v", n, got, want)
		}
	}
	if l.Name() != "constant" || !l.HasSchedule() || l.Streams() != 0 {
		t.Errorf("name %q, schedule %v, streams %d; want constant, true, 0", l.Name(), l.HasSchedule(), l.Streams())
	}
	cc, err := NewConcurrent(4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if l := (&Limited{Strategy: cc, Max: 2}); l.Streams() != 4 || l.HasSchedule() {
		t.Errorf("concurrent: streams %d, schedule %v; want 4, false", l.Streams(), l.HasSchedule())
	}
	// A dropped request (no record) is replaced: request 3 is issued.
	l.Completed(1, nil, 0)
	if got := l.Next(3); got.Kind != Due || got.At != 300*time.Millisecond {
		t.Errorf("after a drop, Next(3) = %+v, want due at 300ms", got)
	}
	if got := l.Next(4); got.Kind != Stop {
		t.Errorf("after a drop, Next(4) = %+v, want Stop", got)
	}
	if got := (&Limited{Strategy: c}).Next(0); got.Kind != Stop {
		t.Errorf("Max 0: Next(0) = %+v, want Stop", got)
	}
}
