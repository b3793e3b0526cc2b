package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/llmprober/llmprober/probe/sim"
)

var screenshot = flag.Bool("screenshot", false, "rewrite docs/status-page.png, the overview at 1280×900, in TestIntegrationStatusPage")

// chromiumBinary returns Debian's chromium. Without it the test is skipped,
// unless LLMPROBER_REQUIRE_INTEGRATION=1 makes that a failure.
func chromiumBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatalf("LLMPROBER_REQUIRE_INTEGRATION=1 but no chromium: %v", err)
		}
		t.Skip("no chromium (apt-get install chromium; see .ci/run)")
	}
	return p
}

// browserLog collects what the page must never do: log an error, throw,
// fail a request, or send one anywhere but the daemon.
type browserLog struct {
	mu       sync.Mutex
	origin   string
	problems []string
}

func (b *browserLog) add(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Sprintf(format, args...))
}

// listen is the chromedp event listener.
func (b *browserLog) listen(ev any) {
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			b.add("console %s: %s", e.Type, consoleArgs(e.Args))
		}
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError {
			b.add("browser log: %s %s", e.Entry.Text, e.Entry.URL)
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		b.add("exception at %s:%d: %s", d.URL, d.LineNumber, text)
	case *network.EventLoadingFailed:
		if !e.Canceled {
			b.add("request failed: %s", e.ErrorText)
		}
	case *network.EventResponseReceived:
		if e.Response.Status >= 400 {
			b.add("HTTP %d: %s", e.Response.Status, e.Response.URL)
		}
	case *network.EventRequestWillBeSent:
		if u := e.Request.URL; !strings.HasPrefix(u, b.origin+"/") && !strings.HasPrefix(u, "data:") {
			b.add("request outside the daemon: %s", u)
		}
	}
}

func consoleArgs(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, string(a.Value)+a.Description)
	}
	return strings.Join(parts, " ")
}

// viewports are the sizes the pages must fit without horizontal overflow.
var viewports = []struct {
	name          string
	width, height int64
}{{"1280", 1280, 900}, {"390", 390, 844}}

// verdictColours are the badges' background colours per colour scheme
// (style.css).
var verdictColours = map[string]map[string]string{
	"light": {"met": "rgb(26, 127, 55)", "breached": "rgb(207, 34, 46)", "inconclusive": "rgb(110, 119, 129)"},
	"dark":  {"met": "rgb(35, 134, 54)", "breached": "rgb(218, 54, 51)", "inconclusive": "rgb(110, 118, 129)"},
}

// TestIntegrationStatusPage drives Debian's chromium headless against a
// daemon probing the simulated endpoint with faults (the live dashboard
// test's four targets: streamed chat and completions, realtime, and one
// whose every request stalls and whose probes are dropped). On the overview
// and on every target's page, at 1280×900 and 390×844 and in the light and
// dark colour schemes: no console error, exception, failed request or
// request outside the daemon; the document no wider than the viewport; the
// overview's verdict badges say and are coloured as the JSON API's
// verdicts; every sparkline and chart has drawn the data the history API
// has (and the healthy targets' have data for every quantity); the target
// page refreshes its figures without reloading, except while the mouse is
// over a chart. Screenshots go to the
// test's artifact directory (go test -artifacts); -screenshot rewrites
// docs/status-page.png.
func TestIntegrationStatusPage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := chromiumBinary(t)
	s, err := sim.Start(sim.Config{
		TTFT: sim.Latency{Mean: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}, ITL: sim.Latency{Mean: 2 * time.Millisecond},
		OutputTokens: 8, Seed: 1,
		Faults: map[sim.Fault]float64{sim.FaultHTTP500: 0.05, sim.FaultHTTP429: 0.05, sim.FaultMalformed: 0.05},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	r := startRun(t, []string{"run", "--config", writeFile(t, "status.yml", liveTargets(s.URL())), "--listen-address", "127.0.0.1:0"}, nil)
	targets := []string{"sim-chat", "sim-completions", "sim-realtime", "sim-stalled"}
	eventually(t, 60*time.Second, "two closed history points with requests for every target", func() bool {
		for _, name := range targets {
			h := historyOf(t, r, name)
			if len(h.Times) < 2 || total(h.Requests["successful"])+total(h.Requests["errored"]) == 0 {
				return false
			}
		}
		return true
	})

	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-component-update", true), chromedp.Flag("no-pings", true),
		// Nothing leaves the machine: any request not to loopback goes to
		// a closed local port (and the log reports it).
		chromedp.ProxyServer("127.0.0.1:9"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	log := watchBrowser(ctx, t, r.base)
	shots := t.ArtifactDir()
	for _, scheme := range []string{"light", "dark"} {
		for _, vp := range viewports {
			setView(ctx, t, vp.width, vp.height, scheme)
			checkOverview(ctx, t, r, scheme)
			checkWidth(ctx, t, "overview", vp.width)
			shoot(ctx, t, filepath.Join(shots, "overview-"+scheme+"-"+vp.name+".png"))
			if *screenshot && scheme == "light" && vp.name == "1280" {
				shoot(ctx, t, filepath.Join("..", "..", "docs", "status-page.png"))
			}
			for _, name := range targets {
				checkTargetPage(ctx, t, r, name)
				checkWidth(ctx, t, name, vp.width)
				shoot(ctx, t, filepath.Join(shots, name+"-"+scheme+"-"+vp.name+".png"))
			}
		}
	}
	checkRefresh(ctx, t, r)
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, p := range log.problems {
		t.Error(p)
	}
	t.Logf("screenshots in %s", shots)
}

// jsonHistory is the part of the history document the test reads.
type jsonHistory struct {
	Times      []float64                             `json:"times"`
	Requests   map[string][]float64                  `json:"requests"`
	Quantities map[string]map[string]json.RawMessage `json:"quantities"`
	Objectives map[string]json.RawMessage            `json:"objectives"`
}

func historyOf(t *testing.T, r *running, name string) jsonHistory {
	t.Helper()
	var h jsonHistory
	_, body := r.get(t, "/api/v1/targets/"+url.PathEscape(name)+"/history")
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatalf("history of %s: %v", name, err)
	}
	return h
}

func total(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// hasData reports whether a percentile column has a value.
func hasData(col json.RawMessage) bool {
	var vs []*float64
	_ = json.Unmarshal(col, &vs)
	return slices.ContainsFunc(vs, func(v *float64) bool { return v != nil })
}

func setView(ctx context.Context, t *testing.T, w, h int64, scheme string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatal(err)
	}
	media := emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, media); err != nil {
		t.Fatal(err)
	}
}

// load opens path and waits until its script has refreshed once.
func load(ctx context.Context, t *testing.T, r *running, path string) {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Navigate(r.base+path), pollTrue(`window.llmprober && window.llmprober.refreshes >= 1`))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func eval[T any](ctx context.Context, t *testing.T, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// checkOverview compares the overview's badges with the API's verdicts of
// each target's longest window, and checks that every sparkline drew data.
func checkOverview(ctx context.Context, t *testing.T, r *running, scheme string) {
	t.Helper()
	load(ctx, t, r, "/?refresh=1")
	type badge struct{ Target, Objective, Verdict, Text, Colour string }
	// The page is read between two reads of the API; where these agree,
	// the page must show their verdict (a refresh that falls in between
	// may show either, and is compared with the one it read).
	before := apiVerdicts(t, r)
	badges := eval[[]badge](ctx, t, `[...document.querySelectorAll("tr[data-target] .objective")].map(d => {
		const b = d.querySelector(".verdict");
		return {Target: d.closest("tr").dataset.target, Objective: d.dataset.objective, Verdict: b.dataset.verdict,
			Text: b.textContent, Colour: getComputedStyle(b).backgroundColor};
	})`)
	after := apiVerdicts(t, r)
	if len(badges) != len(after) || len(badges) == 0 {
		t.Errorf("%d verdict badges, want %d (%v)", len(badges), len(after), after)
	}
	words := map[string]string{"met": "met", "breached": "breaching", "inconclusive": "not enough data"}
	for _, b := range badges {
		key := b.Target + "/" + b.Objective
		if b.Colour != verdictColours[scheme][b.Verdict] || !strings.HasSuffix(b.Text, words[b.Verdict]) {
			t.Errorf("%s: badge %+v, want the colour %s and the word %q of its verdict", key, b, verdictColours[scheme][b.Verdict], words[b.Verdict])
		}
		if v, ok := after[key]; !ok || (before[key] == v && b.Verdict != v) || (b.Verdict != v && b.Verdict != before[key]) {
			t.Errorf("%s: verdict %s on the page, %s and %s in the API", key, b.Verdict, before[key], v)
		}
	}
	drawn := eval[map[string]bool](ctx, t, `Object.fromEntries(Object.entries(window.llmprober.sparks).map(([k, u]) =>
		[k, u.data[0].length > 0 && u.data.slice(1).some(s => s.some(v => v != null))]))`)
	if len(drawn) != 8 {
		t.Errorf("%d sparklines, want 2 for each of the 4 targets: %v", len(drawn), drawn)
	}
	for k, ok := range drawn {
		if !ok && k != "sim-stalled/latency" {
			t.Errorf("sparkline %s has no data", k)
		}
	}
}

// apiVerdicts returns the JSON API's verdict of every target's longest
// (last) window by target/objective.
func apiVerdicts(t *testing.T, r *running) map[string]string {
	t.Helper()
	var doc struct {
		Targets []struct {
			Name    string `json:"name"`
			Windows []struct {
				Objectives map[string]struct {
					Verdict *string `json:"verdict"`
				} `json:"objectives"`
			} `json:"windows"`
		} `json:"targets"`
	}
	_, body := r.get(t, "/api/v1/targets")
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tg := range doc.Targets {
		for name, o := range tg.Windows[len(tg.Windows)-1].Objectives {
			if o.Verdict != nil {
				out[tg.Name+"/"+name] = *o.Verdict
			}
		}
	}
	return out
}

// checkTargetPage checks that every chart of name's page drew what its
// history has: every quantity for a target with successful requests.
func checkTargetPage(ctx context.Context, t *testing.T, r *running, name string) {
	t.Helper()
	load(ctx, t, r, "/targets/"+url.PathEscape(name)+"?refresh=1")
	drawn := eval[map[string]bool](ctx, t, `Object.fromEntries(Object.entries(window.llmprober.charts).map(([k, u]) =>
		[k, u.data[0].length > 0 && u.data.slice(1).some(s => s.some(v => v != null)) &&
			u.root.querySelector("canvas").width > 0]))`)
	h := historyOf(t, r, name)
	healthy := total(h.Requests["successful"]) > 0
	for _, id := range []string{"requests", "errors", "probes", "attainment", "goodput", "concurrency", "tokens"} {
		if (id == "attainment" || id == "goodput") && len(h.Objectives) == 0 {
			if _, ok := drawn[id]; ok {
				t.Errorf("%s: chart %s without an objective set", name, id)
			}
			continue
		}
		if !drawn[id] {
			t.Errorf("%s: chart %s has no data (%v)", name, id, drawn)
		}
	}
	for q, cols := range h.Quantities {
		if drawn[q] != hasData(cols["p50"]) || (healthy && !drawn[q]) {
			t.Errorf("%s: chart %s drawn %v, history has data %v", name, q, drawn[q], hasData(cols["p50"]))
		}
	}
	if n := eval[int](ctx, t, `document.querySelectorAll("#windows tbody tr").length`); n != 3 {
		t.Errorf("%s: %d window rows, want 3", name, n)
	}
	if n := eval[int](ctx, t, `document.querySelectorAll("#recent tbody tr").length`); n == 0 {
		t.Errorf("%s: no recent request", name)
	}
}

// checkWidth checks that the document is no wider than the viewport.
func checkWidth(ctx context.Context, t *testing.T, page string, width int64) {
	t.Helper()
	if w := eval[int64](ctx, t, `document.documentElement.scrollWidth`); w > width {
		t.Errorf("%s at %d px: the document is %d px wide", page, width, w)
	}
}

// checkRefresh checks that sim-chat's page redraws its figures from the
// API without reloading (the requests sent since start grow, the page
// object stays the same), and that hovering over a chart pauses that.
func checkRefresh(ctx context.Context, t *testing.T, r *running) {
	t.Helper()
	load(ctx, t, r, "/targets/sim-chat?refresh=1")
	before := eval[string](ctx, t, `window.__loaded = true; document.querySelector('[data-field="summary"] tr').children[7].textContent`)
	if err := chromedp.Do(ctx, pollTrue(`window.llmprober.refreshes >= 3`)); err != nil {
		t.Fatal(err)
	}
	after := eval[string](ctx, t, `document.querySelector('[data-field="summary"] tr').children[7].textContent`)
	if !eval[bool](ctx, t, `window.__loaded === true`) || after == before {
		t.Errorf("no refresh without reload: sent %s, then %s", before, after)
	}
	// Hovering over a chart pauses the refresh; leaving it resumes.
	// A refresh already under way when the mouse came may still end.
	eval[bool](ctx, t, `document.querySelector(".chart").dispatchEvent(new MouseEvent("mouseenter"))`)
	if err := chromedp.Do(ctx, chromedp.Sleep(time.Second)); err != nil {
		t.Fatal(err)
	}
	paused := eval[int](ctx, t, `window.llmprober.refreshes`)
	if err := chromedp.Do(ctx, chromedp.Sleep(2500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](ctx, t, `window.llmprober.refreshes`); n != paused {
		t.Errorf("%d refreshes while the mouse was over a chart", n-paused)
	}
	eval[bool](ctx, t, `document.querySelector(".chart").dispatchEvent(new MouseEvent("mouseleave"))`)
	if err := chromedp.Do(ctx, pollTrue(fmt.Sprintf(`window.llmprober.refreshes > %d`, paused))); err != nil {
		t.Errorf("no refresh after the mouse left the chart: %v", err)
	}
}

// pollTrue waits until the expression is true, for at most 20 s.
func pollTrue(js string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](js, chromedp.WithPollingTimeout(20*time.Second))(ctx, t)
		return err
	})
}

// shoot writes a screenshot of the whole page to path.
func shoot(ctx context.Context, t *testing.T, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// watchBrowser records the console, exceptions and requests of the browser
// of ctx, judged against origin (the only place requests may go).
func watchBrowser(ctx context.Context, t *testing.T, origin string) *browserLog {
	t.Helper()
	log := &browserLog{origin: origin}
	if err := chromedp.Listen(ctx, log.listen); err != nil {
		t.Fatalf("could not start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("could not start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return log
}
