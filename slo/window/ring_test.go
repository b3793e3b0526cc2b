package window

import (
	"math"
	"testing"
	"time"
)

// A ring allocates its slots a chunk at a time as buckets reach them: one
// chunk for the first buckets, every chunk once the buckets have gone
// round, and none for a bucket older than the ring holds.
func TestRingAllocatesSlotsAsUsed(t *testing.T) {
	r := newRing(t0, time.Hour, DefaultSampleCap, 0, 1)
	allocated := func() int {
		n := 0
		for _, c := range r.chunks {
			if c != nil {
				n++
			}
		}
		return n
	}
	if n := allocated(); n != 0 {
		t.Fatalf("%d chunks before any bucket, want 0", n)
	}
	for b := range int64(slotChunk) {
		r.add(entry{end: b * r.width})
	}
	if n := allocated(); n != 1 {
		t.Errorf("%d chunks after %d buckets, want 1", n, slotChunk)
	}
	for b := range int64(2 * r.nslots) {
		r.add(entry{end: b * r.width})
	}
	if n, want := allocated(), (r.nslots+slotChunk-1)/slotChunk; n != want {
		t.Errorf("%d chunks after the buckets went round, want %d", n, want)
	}
	if s := r.create(0); s != nil {
		t.Errorf("bucket 0, older than the ring holds, got slot %+v", s)
	}
}

// A slot's 32-bit counts saturate instead of wrapping.
func TestSlotCountsSaturate(t *testing.T) {
	r := newRing(t0, time.Minute, DefaultSampleCap, 0, 1)
	s := r.create(0)
	s.seen[0], s.probes.sent = math.MaxInt32-1, math.MaxInt32
	for range 2 {
		r.add(entry{end: 0})
	}
	incr(&s.probes.sent)
	if s.seen[0] != math.MaxInt32 || s.total() != math.MaxInt32 || s.probes.sent != math.MaxInt32 {
		t.Errorf("seen %d, total %d, sent %d, want %d each", s.seen[0], s.total(), s.probes.sent, math.MaxInt32)
	}
	var p Probes
	p.addSlot(&s.probes)
	if p.Sent != math.MaxInt32 {
		t.Errorf("Probes.Sent %d, want %d", p.Sent, math.MaxInt32)
	}
}
