package window

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func TestName(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Minute, "1m"}, {5 * time.Minute, "5m"}, {time.Hour, "1h"}, {90 * time.Second, "1m30s"},
		{150 * time.Minute, "2h30m"}, {24 * time.Hour, "24h"}, {500 * time.Millisecond, "500ms"}, {30 * time.Second, "30s"},
	}
	for _, tt := range tests {
		if got := Name(tt.d); got != tt.want {
			t.Errorf("Name(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if d, err := ParseName(tt.want); err != nil || d != tt.d {
			t.Errorf("ParseName(%q) = %v, %v; want %v", tt.want, d, err, tt.d)
		}
	}
	if _, err := ParseName("week"); err == nil {
		t.Error("ParseName(week) succeeded")
	}
}

func TestSettingsErrors(t *testing.T) {
	tests := []struct {
		name string
		s    Settings
		want string
	}{
		{"zero window", Settings{Windows: []time.Duration{0}}, "window 0s: must be > 0"},
		{"negative window", Settings{Windows: []time.Duration{-time.Minute}}, "window -1m0s: must be > 0"},
		{"duplicate window", Settings{Windows: []time.Duration{time.Minute, 60 * time.Second}}, "window 1m: duplicate"},
		{"confidence 1", Settings{Confidence: 1}, "confidence 1: must be in (0, 1)"},
		{"negative confidence", Settings{Confidence: -0.5}, "confidence -0.5"},
		{"negative warmup", Settings{Warmup: -time.Second}, "warmup: must be >= 0"},
		{"tiny cap", Settings{SampleCap: 100}, "sample cap 100: must be at least 720"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewStore("x", tt.s)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "could not create windows of x") {
				t.Errorf("NewStore error %v, want one containing %q", err, tt.want)
			}
		})
	}
	s, err := NewStore("x", Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Windows(); len(got) != 3 || got[0] != time.Minute || got[2] != time.Hour || s.Confidence() != 0 {
		t.Errorf("defaults: windows %v confidence %v; want 1m 5m 1h and 0 (as given)", got, s.Confidence())
	}
	if d := DefaultSettings(); d.Confidence != 0.95 || d.SampleCap != 100000 || d.Warmup != 0 {
		t.Errorf("DefaultSettings() = %+v", d)
	}
}

func TestUnknownWindowAndOtherTargets(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	if s.Snapshot(clk.Now(), 2*time.Minute) != nil {
		t.Error("snapshot of a window that is not configured")
	}
	// Another target's events are ignored.
	s.Started("other")
	rec := twoRequests[0].record()
	rec.Target = "other"
	s.Finished(rec)
	clk.Set(at(30000))
	if snap := s.Current(time.Minute); snap.Requests.All != 0 || snap.InFlight != 0 {
		t.Errorf("requests %d in flight %d from another target", snap.Requests.All, snap.InFlight)
	}
}

// Snapshots are reused for the cache TTL around the instant they were
// computed at.
func TestSnapshotCache(t *testing.T) {
	s, clk := newTestStore(t, Settings{CacheTTL: time.Second})
	clk.Set(at(30000))
	first := s.Current(time.Minute)
	finish(s, twoRequests...)
	clk.Set(at(30999))
	if got := s.Current(time.Minute); got != first || got.Requests.All != 0 {
		t.Errorf("within the TTL: new snapshot with %d requests, want the cached one", got.Requests.All)
	}
	clk.Set(at(31000))
	if got := s.Current(time.Minute); got == first || got.Requests.All != 2 || !got.End.Equal(at(31000)) {
		t.Errorf("after the TTL: %d requests ending %v, want a new snapshot with 2 at t0 + 31 s", got.Requests.All, got.End)
	}
}

// Records carry every instant and the values and inclusions the window used.
func TestRecords(t *testing.T) {
	s, clk := newTestStore(t, Settings{})
	finish(s, twoRequests[1], twoRequests[0]) // out of order: sorted by end
	clk.Set(at(80000))                        // 1m window [20 s, 80 s]
	recs := s.Current(time.Minute).Records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1 (seq 0 ended before 20 s)", len(recs))
	}
	r := recs[0]
	if r.Request.Seq != 1 || !r.Request.FirstToken.Equal(at(20300)) || r.Weight != 1 || r.Request.Outcome != probe.Successful {
		t.Errorf("record %+v weight %v", r.Request, r.Weight)
	}
	// Its request started exactly at the window start: every value counts,
	// but the WebSocket round-trip metrics, which an HTTP request lacks.
	for _, m := range Metrics() {
		if m == TimeToLastRoundTrip || m == AverageRTT {
			if _, _, ok := r.Value(m); ok || r.Included(m) {
				t.Errorf("%s: defined or included for an HTTP request", m)
			}
			continue
		}
		if _, _, ok := r.Value(m); !ok || !r.Included(m) {
			t.Errorf("%s: defined %v, included %v; want both", m, ok, r.Included(m))
		}
	}
	if v, w, _ := r.Value(ITL); !near(v, 0.1) || w != 5 {
		t.Errorf("ITL %v weight %d, want 0.1 and 5", v, w)
	}
	clk.Set(at(80001)) // [20.001 s, 80.001 s]: the start falls out, the first token (20.3 s) stays
	r = s.Current(time.Minute).Records()[0]
	if r.Included(DispatchDelay) || !r.Included(TTFT) || !r.Included(RequestLatency) {
		t.Errorf("at 80.001 s: dispatch %v TTFT %v latency %v; want false, true, true",
			r.Included(DispatchDelay), r.Included(TTFT), r.Included(RequestLatency))
	}
}

// Recording and reading at once, under the race detector.
func TestConcurrentUse(t *testing.T) {
	s, clk := newTestStore(t, Settings{SampleCap: 720, CacheTTL: time.Millisecond})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range int64(500) {
				end := 1000 + 10*i
				finish(s, req{seq: uint64(w*1000) + uint64(i), start: end - 5, first: end - 3, firstOut: end - 3, last: end - 1, end: end, output: 3})
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 200 {
				clk.Advance(time.Millisecond)
				for _, w := range s.Windows() {
					_ = s.Current(w).Records()
				}
			}
		})
	}
	wg.Wait()
	clk.Set(at(10000))
	if n := s.Snapshot(at(10000), time.Minute).Requests.All; n != 2000 {
		t.Errorf("%d requests, want 4·500", n)
	}
}

// The sample cap is bounded above too: the index addresses a record by
// its bucket's slot and its place in it.
func TestSampleCapBound(t *testing.T) {
	_, err := NewStore("x", Settings{SampleCap: MaxSampleCap + 1})
	if err == nil || !strings.Contains(err.Error(), "sample cap 10000001: must be at most 10000000") {
		t.Errorf("NewStore error %v", err)
	}
	if _, err := NewStore("x", Settings{SampleCap: MaxSampleCap}); err != nil {
		t.Errorf("cap %d: %v", MaxSampleCap, err)
	}
	if k, slots := MaxSampleCap/Buckets, 2*Buckets+2; k >= 1<<refPosBits || slots >= 1<<(32-refSlotShift) {
		t.Errorf("%d records per bucket or %d slots do not fit an index reference", k, slots)
	}
}
