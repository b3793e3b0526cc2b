package window

import (
	"math"
	"testing"
	"time"
)

// TestRateSeries splits the 10 s window of attainmentRequests (starts every
// 0.5 s from 0: ends at 0.5, 1.0, …, 4.0 s for the 8 fast ones, 6.0 for the
// slow one, 4.3 and 4.4 for the errored and incomplete ones) into 10
// intervals of 1 s: ends at 0.5 | 1.0, 1.5 | 2.0, 2.5 | 3.0, 3.5 | 4.0,
// 4.3, 4.4 | — | 6.0 | — … give 1, 2, 2, 2, 3, 0, 1, 0, 0, 0 requests/s;
// each series averages to the window's own rate and concurrency.
func TestRateSeries(t *testing.T) {
	s, clk := newTestStore(t, Settings{Windows: []time.Duration{10 * time.Second}})
	finish(s, attainmentRequests(0, 500)...)
	clk.Set(at(10000))
	snap := s.Current(10 * time.Second)
	rs, ok := snap.RateSeries(10)
	if !ok || rs.IntervalSeconds != 1 {
		t.Fatalf("ok %v, interval %v s; want 1 s", ok, rs.IntervalSeconds)
	}
	want := []float64{1, 2, 2, 2, 3, 0, 1, 0, 0, 0}
	for i := range want {
		if rs.Requests[i] != want[i] {
			t.Fatalf("requests/s %v, want %v", rs.Requests, want)
		}
	}
	mean := func(xs []float64) float64 {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"requests/s", mean(rs.Requests), val(snap.RequestRate.All)},
		{"output tokens/s", mean(rs.OutputTokens), val(snap.OutputTokenRate.All)},
		{"total tokens/s", mean(rs.TotalTokens), val(snap.TotalTokenRate.All)},
		{"concurrency", mean(rs.Concurrency), val(snap.Concurrency)},
	} {
		if math.Abs(c.got-c.want) > 1e-12 || c.want == 0 {
			t.Errorf("%s: series mean %v, window %v", c.name, c.got, c.want)
		}
	}
	if _, ok := snap.RateSeries(0); ok {
		t.Error("RateSeries(0) ok")
	}
}
