package exporter

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// recordEverything drives every code path of o for target name: each state,
// each drop reason, a streamed success with every phase, an error of each
// type, and a cancelled request.
func recordEverything(o *Observer, name string) {
	for _, s := range probe.TargetStates {
		o.State(name, s, time.Second)
	}
	o.Scheduled(name)
	for _, r := range probe.DropReasons {
		o.Dropped(name, r)
	}
	ok := alphaOK()
	ok.Target = name
	ok.HTTP.TLSStart, ok.HTTP.TLSDone = at(15), at(16)
	o.Started(name)
	o.Finished(ok)
	for _, e := range probe.ErrorTypes {
		rec := alphaErr()
		rec.Target, rec.ErrorType = name, e
		o.Started(name)
		o.Finished(rec)
	}
	rec := alphaCanceled()
	rec.Target = name
	o.Started(name)
	o.Finished(rec)
	o.GenerationDelay(name, time.Millisecond)
	o.ThinkTime(name, time.Second)
}

func TestConcurrentObserver(t *testing.T) {
	const goroutines, iterations = 8, 250
	twin := alpha
	twin.Name = "beta"
	m, o := newTestMetrics(t, alpha, twin)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() { // concurrent readers: scrapes and status snapshots
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
				_, _ = m.Registry().Gather()
				_ = o.Status()
				_ = o.NotReady()
			}
		}
	}()
	for g := range goroutines {
		wg.Go(func() {
			name := []string{"alpha", "beta"}[g%2]
			for range iterations {
				o.Scheduled(name)
				o.Started(name)
				rec := alphaOK()
				rec.Target = name
				o.Finished(rec)
				o.State(name, probe.StateReady, time.Second)
				o.Dropped(name, probe.DropQueueFull)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-readerDone
	mfs := gather(t, m)
	// Each target gets 4 goroutines × 250 iterations = 1000 of everything;
	// TTFT sum 1000 × 0.25 = 250 exactly (0.25 is a binary fraction).
	for _, name := range []string{"alpha", "beta"} {
		lbl := map[string]string{"target": name}
		checks := []struct {
			what string
			got  float64
			want float64
		}{
			{"scheduled", findMetric(mfs, "llmprober_probes_scheduled_total", lbl).GetCounter().GetValue(), 1000},
			{"successful", findMetric(mfs, "llmprober_requests_total",
				map[string]string{"target": name, "outcome": "successful"}).GetCounter().GetValue(), 1000},
			{"in flight", findMetric(mfs, "llmprober_requests_in_flight", lbl).GetGauge().GetValue(), 0},
			{"TTFT count", float64(findMetric(mfs, "llmprober_time_to_first_token_seconds", lbl).GetHistogram().GetSampleCount()), 1000},
			{"TTFT sum", findMetric(mfs, "llmprober_time_to_first_token_seconds", lbl).GetHistogram().GetSampleSum(), 250},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("%s %s = %v; want %v", name, c.what, c.got, c.want)
			}
		}
	}
	for _, st := range o.Status() {
		if st.Counts[probe.Successful] != 1000 || len(st.Recent) != RecentPerTarget || !st.Ready() {
			t.Errorf("%s: %d successful, %d recent, ready %v; want 1000, %d, true",
				st.Target.Name, st.Counts[probe.Successful], len(st.Recent), st.Ready(), RecentPerTarget)
		}
	}
}

func TestNewObserverRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		targets []Target
		wantErr string
	}{
		{"empty name", []Target{{API: "chat"}}, "name is empty"},
		{"duplicate", []Target{alpha, alpha}, "duplicate"},
		{"bad api", []Target{{Name: "x", API: "embeddings"}}, `api "embeddings"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestMetrics(t)
			_, err := NewObserver(m, tc.targets)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v; want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestUnknownTargetIgnored(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	rec := alphaOK()
	rec.Target = "ghost"
	o.Scheduled("ghost")
	o.Started("ghost")
	o.Finished(rec)
	o.State("ghost", probe.StateReady, 0)
	if mt := findMetric(gather(t, m), "llmprober_requests_total", map[string]string{"target": "ghost"}); mt != nil {
		t.Errorf("series for an unknown target: %v", mt.GetLabel())
	}
}

func TestReadiness(t *testing.T) {
	_, o := newTestMetrics(t, alpha, beta)
	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"nothing yet", func() {}, []string{"alpha", "beta"}},
		{"alpha ready without a probe", func() { o.State("alpha", probe.StateReady, 0) }, []string{"alpha", "beta"}},
		{"alpha probed (an error counts)", func() { o.Finished(alphaErr()) }, []string{"beta"}},
		{"beta failed then probed", func() {
			o.State("beta", probe.StateFailed, time.Minute)
			o.Finished(betaOK())
		}, []string{"beta"}},
		{"beta ready", func() { o.State("beta", probe.StateReady, time.Minute) }, nil},
	}
	for _, s := range steps {
		s.do()
		if got := o.NotReady(); strings.Join(got, ",") != strings.Join(s.want, ",") {
			t.Errorf("after %s: NotReady = %v; want %v", s.name, got, s.want)
		}
	}
}
