package exporter

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo/window"
)

// scrapeRate is the request rate of BenchmarkScrapeFullWindows, and
// scrapeInterval the time between its scrapes.
const (
	scrapeRate     = 400
	scrapeInterval = 15 * time.Second
)

// scrapeFixture is a server exporting one target whose windows (1m and 5m,
// the default sample cap and cache) hold 5 minutes of requests at
// scrapeRate: 120 000 in 5m, past the cap (138 records per 417 ms bucket).
type scrapeFixture struct {
	handler http.Handler
	store   *window.Store
	clk     *clock.Fake
	rng     *rand.Rand
	seq     uint64
}

func newScrapeFixture(b *testing.B) *scrapeFixture {
	b.Helper()
	m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Revision: "abc123", Getenv: noEnv})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	o, err := NewObserver(m, []Target{alpha})
	if err != nil {
		b.Fatal(err)
	}
	o.State("alpha", probe.StateReady, 0)
	f := &scrapeFixture{clk: fakeAt(t0), rng: rand.New(rand.NewPCG(1, 2))}
	f.store, err = window.NewStore("alpha", window.Settings{Windows: []time.Duration{time.Minute, 5 * time.Minute},
		Confidence: 0.95, Clock: f.clk, Objectives: alpha.Objectives})
	if err != nil {
		b.Fatal(err)
	}
	f.store.State("alpha", probe.StateReady, 0)
	w, err := NewWindows(m, o, []*window.Store{f.store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = w.Close() })
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	f.handler = s.Handler()
	f.feed(5 * time.Minute)
	return f
}

// feed records d of requests at scrapeRate, ending evenly, as the prober
// would: streamed, 16–80 output tokens 10–30 ms apart after a TTFT of
// 50–300 ms, 1% answered 503 without tokens.
func (f *scrapeFixture) feed(d time.Duration) {
	step, until := time.Second/scrapeRate, f.clk.Now().Add(d)
	for end := f.clk.Now().Add(step); !end.After(until); end = end.Add(step) {
		f.seq++
		output := 16 + f.rng.IntN(65)
		last := end.Add(-time.Duration(f.rng.IntN(1000)) * time.Microsecond)
		first := last.Add(-time.Duration(10+f.rng.IntN(20)) * time.Millisecond * time.Duration(output-1))
		start := first.Add(-time.Duration(50+f.rng.IntN(250)) * time.Millisecond)
		r := &probe.Record{Target: "alpha", Seq: f.seq, API: "chat", Stream: true,
			TargetedStart: start.Add(-time.Duration(100+f.rng.IntN(900)) * time.Microsecond), RequestStart: start,
			FirstChunk: first, FirstToken: first, FirstOutputToken: first, LastToken: last, End: end,
			PromptTokens: 100 + f.rng.IntN(201), PromptTokensFrom: probe.TokensFromUsage,
			OutputTokens: output, OutputTokensFrom: probe.TokensFromUsage, Iterations: output,
			Outcome: probe.Successful, HTTPStatus: 200}
		if f.seq%100 == 0 {
			r.FirstChunk, r.FirstToken, r.FirstOutputToken, r.LastToken = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			r.OutputTokensFrom, r.Outcome, r.ErrorType, r.HTTPStatus = probe.TokensUnknown, probe.Errored, probe.ErrorHTTP5xx, 503
		}
		f.clk.Set(end)
		f.store.Started("alpha")
		f.store.Finished(r)
	}
}

// BenchmarkScrapeFullWindows measures what a scrape costs with full
// windows: every scrapeInterval of fake time (scrapeInterval × scrapeRate
// new requests, recorded with the timer stopped), one GET of /metrics (the
// whole registry gathered and encoded, the window gauges computing both
// windows' snapshots), of /api/v1/targets or of one window with every
// outcome. The windows are computed anew for each, as the scrape interval
// exceeds the snapshot cache's second.
func BenchmarkScrapeFullWindows(b *testing.B) {
	for _, path := range []string{"/metrics", "/api/v1/targets", "/api/v1/targets/alpha/windows/5m"} {
		b.Run(path, func(b *testing.B) {
			f := newScrapeFixture(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				f.feed(scrapeInterval)
				b.StartTimer()
				rec := httptest.NewRecorder()
				f.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+path, nil))
				if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
					b.Fatalf("GET %s: %d, %d bytes", path, rec.Code, rec.Body.Len())
				}
			}
			if n := f.store.Current(5 * time.Minute).Requests.All; n < 119000 || n > 121000 {
				b.Fatalf("%d requests in 5m, want 120 000", n)
			}
		})
	}
}
