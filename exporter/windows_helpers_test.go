package exporter

import (
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo/window"
)

// newWindowStore returns a window store for target on clk (no snapshot
// cache), ready at t0.
func newWindowStore(t *testing.T, clk clock.Clock, target string, s window.Settings) *window.Store {
	t.Helper()
	s.Clock, s.CacheTTL = clk, -1
	st, err := window.NewStore(target, s)
	if err != nil {
		t.Fatal(err)
	}
	st.State(target, probe.StateReady, 0)
	return st
}

// newTestWindows exports stores on m (nil for no gauges) and closes them
// at the end of the test.
func newTestWindows(t *testing.T, m *Metrics, o *Observer, stores ...*window.Store) *Windows {
	t.Helper()
	w, err := NewWindows(m, o, stores)
	if err != nil {
		t.Fatalf("NewWindows: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return w
}

// streamed returns a successful streamed record of target: instants in ms
// from t0 (targeted start absent when negative), tokens from usage.
func streamed(target string, seq uint64, targeted, start, first, last, end, prompt, output int) *probe.Record {
	r := &probe.Record{
		Target: target, Seq: seq, API: "chat", Stream: true,
		RequestStart: at(start), FirstChunk: at(first), FirstToken: at(first), FirstOutputToken: at(first),
		LastToken: at(last), End: at(end),
		PromptTokens: prompt, PromptTokensFrom: probe.TokensFromUsage,
		OutputTokens: output, OutputTokensFrom: probe.TokensFromUsage, Iterations: output,
		Outcome: probe.Successful, HTTPStatus: 200,
	}
	if targeted >= 0 {
		r.TargetedStart = at(targeted)
	}
	return r
}

// windowFamilies keeps the llmprober_window_* families.
func windowFamilies(mfs []*dto.MetricFamily) map[string]*dto.MetricFamily {
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		if strings.HasPrefix(mf.GetName(), "llmprober_window_") {
			out[mf.GetName()] = mf
		}
	}
	return out
}

// fakeAt returns a fake clock reading t.
func fakeAt(t time.Time) *clock.Fake { return clock.NewFake(t) }
