package window

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestSubIndexes holds the windows that read a sub-index to what they read
// without one: a store with sub-indexes and one without, fed the same
// records (millisecond values, so with many ties; errors, incomplete
// requests, records whose TTFOT or iterations differ coming and going), give
// the same snapshots, field for field, exact and sampled, at instants that
// go forward, jump past the ring, and step back; after each, every
// sub-index holds the index's elements of its slots in the index's order.
func TestSubIndexes(t *testing.T) {
	ws := []time.Duration{15 * time.Second, 30 * time.Second, 5 * time.Minute}
	for _, sampleCap := range []int{DefaultSampleCap, Buckets} {
		t.Run(fmt.Sprintf("cap=%d", sampleCap), func(t *testing.T) {
			set := Settings{Windows: ws, SampleCap: sampleCap, Seed: 3}
			with, clk := newTestStore(t, set)
			without, clk2 := newTestStore(t, set)
			without.index.subs = nil
			if n := len(with.index.subs); n != 2 {
				t.Fatalf("%d sub-indexes, want 2 (15s and 30s)", n)
			}
			rng := rand.New(rand.NewPCG(11, 12))
			now, seq := t0, uint64(0)
			for step := range 400 {
				d := time.Duration(rng.IntN(4000)) * time.Millisecond
				if step == 200 {
					d = 7 * time.Minute // past the whole ring
				}
				now = now.Add(d)
				clk.Set(now)
				clk2.Set(now)
				for range rng.IntN(30) {
					seq++
					rec := randomRecord(rng, seq, now.Add(-time.Duration(rng.IntN(1500))*time.Millisecond))
					if step%100 < 60 { // mostly alike for a while, so the aliases' values leave the index and come back
						alike(rec)
					}
					for _, s := range []*Store{with, without} {
						s.Started(target)
						s.Finished(rec)
					}
				}
				read := now
				if step%17 == 0 {
					read = now.Add(-time.Duration(rng.IntN(20)) * time.Second) // an earlier instant
				}
				a, b := with.Snapshots(read), without.Snapshots(read)
				for i := range a {
					if !reflect.DeepEqual(a[i], b[i]) {
						t.Fatalf("step %d, %s at %v: the snapshot differs from the one computed without sub-indexes", step, ws[i], read.Sub(t0))
					}
				}
				if step%25 == 0 {
					checkRecomputed(t, fmt.Sprintf("step %d", step), a[0])
				}
				if step%31 == 0 {
					from := read.Add(-2 * time.Minute)
					if x, y := with.SnapshotSpan(from, read, now), without.SnapshotSpan(from, read, now); !reflect.DeepEqual(x, y) {
						t.Fatalf("step %d: the span differs", step)
					}
				}
				checkSubIndexes(t, step, with)
			}
		})
	}
}

// checkSubIndexes fails unless every sub-index of s holds, for each metric
// and status, exactly the index's elements whose slot holds a bucket from
// its lowest on, in the index's order.
func checkSubIndexes(t *testing.T, step int, s *Store) {
	t.Helper()
	s.mu.Lock()
	buckets := make([]int64, s.ring.nslots)
	for i := range buckets {
		buckets[i] = -1
		if sl := s.ring.slot(i); sl != nil {
			buckets[i] = sl.n
		}
	}
	s.mu.Unlock()
	ix := &s.index
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, sub := range ix.subs {
		for m := range numMetrics {
			for st := range numStatuses {
				var want []elem
				for _, x := range ix.sorted[m][st] {
					if buckets[x.slot()] >= sub.lowest {
						want = append(want, x)
					}
				}
				if got := sub.sorted[m][st]; len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
					t.Fatalf("step %d, %s sub-index, %s status %d: %d elements, want %d (the index's from bucket %d)",
						step, sub.w, Metric(m), st, len(got), len(want), sub.lowest)
				}
			}
		}
	}
}

// TestSubIndexChoice checks which windows keep a sub-index (those at most a
// eighth of the longest) and that a window whose first bucket lies before
// its sub-index's lowest reads the index.
func TestSubIndexChoice(t *testing.T) {
	for _, c := range []struct {
		ws   []time.Duration
		want []time.Duration
	}{
		{[]time.Duration{time.Minute, 5 * time.Minute, time.Hour}, []time.Duration{time.Minute, 5 * time.Minute}},
		{[]time.Duration{30 * time.Second, 4 * time.Minute}, []time.Duration{30 * time.Second}},
		{[]time.Duration{time.Minute, 5 * time.Minute}, nil},
		{[]time.Duration{time.Hour}, nil},
	} {
		var got []time.Duration
		for _, sub := range newSubIndexes(c.ws) {
			got = append(got, sub.w)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("windows %v: sub-indexes for %v, want %v", c.ws, got, c.want)
		}
	}
	ix := valueIndex{subs: newSubIndexes([]time.Duration{time.Minute, time.Hour})}
	ix.subs[0].lowest = 100
	if ix.sortedFor(time.Minute, 100) != &ix.subs[0].sorted || ix.sortedFor(time.Minute, 99) != &ix.sorted ||
		ix.sortedFor(time.Hour, 100) != &ix.sorted {
		t.Error("sortedFor: want the sub-index from its lowest bucket on, the index before it and for the longest window")
	}
}
