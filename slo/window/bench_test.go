package window

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// benchSizes are the numbers of requests in the window.
var benchSizes = []int{100, 10000, 1000000}

// fill records n requests ending evenly over the hour after t0 into a store
// with the default settings (windows 1m, 5m, 1h; cap 100 000), and returns
// the time it read at the end.
func fill(b *testing.B, n int) (*Store, time.Time) {
	b.Helper()
	s, _ := newTestStore(b, Settings{})
	step := time.Hour / time.Duration(n)
	recs := make([]req, 0, 64)
	for i := range n {
		end := step * time.Duration(i+1)
		ms := func(d time.Duration) int64 { return int64(d / time.Millisecond) }
		r := req{seq: uint64(i), targeted: ms(end - 300*time.Millisecond), start: ms(end - 250*time.Millisecond),
			first: ms(end - 200*time.Millisecond), firstOut: ms(end - 200*time.Millisecond),
			last: ms(end - 10*time.Millisecond), end: ms(end), prompt: 128, output: 16 + i%48}
		recs = append(recs[:0], r)
		finish(s, recs...)
	}
	return s, t0.Add(time.Hour)
}

// BenchmarkRecord measures recording: the time per recorded request
// (building its record included), and the heap a store retains per request
// once n requests are in its hour and a snapshot has built its index. Below
// the cap that is the 96-byte entry, 16 bytes per quantity in the index
// and the store's fixed 722 buckets (about 52 kB) shared among them; above
// it the retained memory stops growing.
func BenchmarkRecord(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var retained uint64
			for b.Loop() {
				var before, after runtime.MemStats
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.StartTimer()
				s, now := fill(b, n)
				b.StopTimer()
				s.Snapshots(now)
				runtime.GC()
				runtime.GC()
				runtime.ReadMemStats(&after)
				retained = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
				runtime.KeepAlive(s)
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
			b.ReportMetric(float64(retained)/float64(n), "bytes/record")
		})
	}
}

// BenchmarkSnapshot measures computing the 1h window of n requests (the
// cache is off, so every call computes).
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, now := fill(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if snap := s.Snapshot(now, time.Hour); snap.Requests.All != int64(n) {
					b.Fatalf("%d requests in the window, want %d", snap.Requests.All, n)
				}
			}
		})
	}
}
