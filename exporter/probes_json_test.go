package exporter

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// TestAPIProbes plays scheduler events to the Observer and the windows, as
// the daemon does: at 10 s 4 due, 3 sent, 1 dropped for a full queue; at
// 100 s 2 due, 1 sent, 1 dropped at shutdown. Read at 120 s: the target has
// 6 / 4 / 1 + 1 since start, the 5m window the same, the 1m window
// ([60 s, 120 s]) 2 / 1 / 0 + 1.
func TestAPIProbes(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{time.Minute, 5 * time.Minute}, Confidence: 0.95})
	obs := probe.Observers{o, st}
	o.State("alpha", probe.StateReady, 0)
	play := func(ms, due, sent int, drop probe.DropReason) {
		clk.Set(at(ms))
		for range due {
			obs.Scheduled("alpha")
		}
		for range sent {
			obs.Started("alpha")
		}
		obs.Dropped("alpha", drop)
	}
	play(10000, 4, 3, probe.DropQueueFull)
	play(100000, 2, 1, probe.DropShutdown)
	clk.Set(at(120000))
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	type probes struct {
		Scheduled, Sent int
		Dropped         map[string]int
	}
	var got struct {
		Targets []struct {
			Probes  probes
			Windows []struct{ Probes *probes }
		}
	}
	if code := getJSON(t, c, base+"/api/v1/targets", &got); code != http.StatusOK || len(got.Targets) != 1 {
		t.Fatalf("status %d, %+v", code, got)
	}
	tg := got.Targets[0]
	for name, tc := range map[string]struct {
		got                           *probes
		due, sent, queueFull, atClose int
	}{
		"since start": {&tg.Probes, 6, 4, 1, 1},
		"1m":          {tg.Windows[0].Probes, 2, 1, 0, 1},
		"5m":          {tg.Windows[1].Probes, 6, 4, 1, 1},
	} {
		p := tc.got
		if p == nil || p.Scheduled != tc.due || p.Sent != tc.sent || p.Dropped["queue_full"] != tc.queueFull ||
			p.Dropped["shutdown"] != tc.atClose || len(p.Dropped) != len(probe.DropReasons) {
			t.Errorf("%s: %+v, want %d due, %d sent, dropped queue_full %d, shutdown %d", name, p, tc.due, tc.sent, tc.queueFull, tc.atClose)
		}
	}
	_, page, _ := get(t, c, http.MethodGet, base+"/", nil)
	for _, want := range []string{"<td>6</td><td>4</td><td>2 (33.3%; queue_full 1, shutdown 1)</td>", "<td>1m</td><td>2 / 1 / 1</td>", "<td>5m</td><td>6 / 4 / 2</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("landing page lacks %s", want)
		}
	}
}
