package exporter

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
	"github.com/llmprober/llmprober/slo/window"
)

// TestOverviewPage checks the overview's row of a target whose 1m window
// holds 400 requests that all conform to alpha's objective set (TTFT
// 0.1 s ≤ 0.3 s, ITL 0.01 s ≤ 0.05 s): the Wilson interval's lower bound
// 400/(400 + 1.96²) = 0.9905 reaches 0.99, so the verdict is met; 401
// requests were due and 1 dropped; no error of 400.
func TestOverviewPage(t *testing.T) {
	m, o := newTestMetrics(t, alpha)
	o.State("alpha", probe.StateReady, 0)
	clk := fakeAt(t0)
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{time.Minute},
		Objectives: []slo.Objective{alphaObjective}, Confidence: 0.95})
	for i := range 400 {
		st.Scheduled("alpha")
		st.Started("alpha")
		start := 100 * i
		st.Finished(streamed("alpha", uint64(i), -1, start, start+100, start+130, start+140, 10, 4))
	}
	st.Scheduled("alpha")
	st.Dropped("alpha", probe.DropQueueFull)
	clk.Set(at(50000))
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	base, c := startServer(t, s)
	code, page, _ := get(t, c, http.MethodGet, base+"/", nil)
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	row := rowWith(t, strings.ReplaceAll(page, "\n", ""), `data-target="alpha"`)
	for _, want := range []string{
		`<span class="state state-ready" data-field="state">ready</span>`,
		`<span class="verdict v-met" data-verdict="met">default: met</span>`,
		`<span class="attainment">1m 100.0% [99.0, 100.0] of 99%</span>`,
		`<td data-label="Error ratio" data-field="errors">0.0% of 400</td>`,
		`<td data-label="Dropped" data-field="drops">1 of 401 due</td>`,
		`data-quantity="time_to_first_token"`,
	} {
		if !strings.Contains(row, want) {
			t.Errorf("the row lacks %s:\n%s", want, row)
		}
	}
	if !strings.Contains(page, `data-window="1m"`) {
		t.Error("the page does not name the window of its figures")
	}
}
