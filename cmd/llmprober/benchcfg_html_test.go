package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/llmprober/llmprober/probe/sim"
)

// uPlotBanner is the one URL the HTML report may hold: uPlot's own
// comment, which the browser never fetches.
const uPlotBanner = "/*! https://github.com/leeoniya/uPlot (v1.6.32) */"

// externalRef matches anything a browser could fetch from another origin.
var externalRef = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|url\(\s*['"]?(https?:)?//|\ssrc=|\shref=`)

// htmlObjectives are two objective sets with a threshold on each charted
// quantity, so that every chart has its markers.
const htmlObjectives = `{name: default, ttft: 12ms, itl: 3ms, latency: 40ms, attainment: 0.9, period: 7d}
      - {name: strict, ttft: 9ms, attainment: 0.99, period: 7d}`

// benchHTML runs bench --config against a jittery sim (output lengths
// from 2 to 16 tokens, so that the ITL weights differ) with args, and
// returns the JSON report and the HTML report it wrote, which must not
// show the target's URL (the JSON report has it).
func benchHTML(t *testing.T, args ...string) (report htmlTestDoc, page string) {
	t.Helper()
	s, err := sim.Start(sim.Config{TTFT: sim.Latency{Mean: 8 * time.Millisecond, Jitter: 6 * time.Millisecond},
		ITL: sim.Latency{Mean: 2 * time.Millisecond, Jitter: 2 * time.Millisecond}, OutputTokens: 8, Seed: 5,
		Faults: map[sim.Fault]float64{sim.FaultHTTP500: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cfg := writeFile(t, "c.yml", fmt.Sprintf(`targets:
  - name: simt
    base_url: %s/v1
    model: sim-model
    stream: true
    readiness: {path: /health, interval: 50ms}
    workload: {prompt_tokens: 16, output_tokens: {mean: 8, stdev: 5, min: 2, max: 16}}
    schedule: {rate: 100, max_concurrency: 8}
    objectives:
      - %s
`, s.URL(), htmlObjectives))
	dir := t.TempDir()
	out, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	args = append([]string{"--config", cfg, "--output", out, "--html", html}, args...)
	if code, stdout, stderr := runBenchConfig(context.Background(), t, args...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(p), s.URL()) {
		t.Errorf("the page shows the target's URL %s", s.URL())
	}
	return report, string(p)
}

// htmlTestDoc is what the test reads of the JSON report.
type htmlTestDoc struct {
	Benchmarks []struct {
		Label  string `json:"label"`
		Config struct {
			Objectives []struct {
				Name       string             `json:"name"`
				Thresholds map[string]float64 `json:"thresholds_seconds"`
				Attainment float64            `json:"target_attainment"`
			} `json:"objectives"`
		} `json:"config"`
		Window struct {
			RequestsPerSecond map[string]float64 `json:"requests_per_second"`
			Summaries         map[string]map[string]struct {
				Count       float64 `json:"count"`
				Percentiles map[string]struct {
					Value *float64 `json:"value"`
				} `json:"percentiles"`
			} `json:"summaries"`
			Records struct {
				Requests []struct {
					Outcome  string             `json:"outcome"`
					Values   map[string]float64 `json:"values"`
					Included []string           `json:"included"`
				} `json:"requests"`
			} `json:"records"`
		} `json:"window"`
		SLO []struct {
			Attainment *float64 `json:"attainment"`
			Goodput    *float64 `json:"goodput_requests_per_second"`
		} `json:"slo"`
	} `json:"benchmarks"`
}

// testChart is one chart of the HTML report's embedded data.
type testChart struct {
	ID      string       `json:"id"`
	Title   string       `json:"title"`
	Series  []string     `json:"series"`
	Data    [][]*float64 `json:"data"`
	Markers []struct {
		Axis  string  `json:"axis"`
		Value float64 `json:"value"`
	} `json:"markers"`
}

// embeddedCharts decodes the chart data of page, by chart id.
func embeddedCharts(t *testing.T, page string) map[string]testChart {
	t.Helper()
	const open = `<script type="application/json" id="bench-charts">`
	_, rest, ok := strings.Cut(page, open)
	text, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatalf("no chart data in the page")
	}
	var charts []testChart
	if err := json.Unmarshal([]byte(text), &charts); err != nil {
		t.Fatalf("chart data: %v\n%.300s", err, text)
	}
	byID := map[string]testChart{}
	for _, c := range charts {
		byID[c.ID] = c
	}
	return byID
}

// near reports whether a and b agree to 1e-9 relative.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestBenchHTMLSingle: the distributions of one benchmark are the JSON
// report's records: x the distinct values of the successful requests that
// count in the summary, in ms ascending; y reaches 100 %; at p50, p90 and
// p99 of the JSON summary the curve first reaches that share (the
// nearest-rank percentile; token-weighted for ITL); the thresholds drawn
// are the objective sets'. Every chart has a div and a title, a single
// benchmark has no load curves, and nothing in the file is fetched from
// elsewhere.
func TestBenchHTMLSingle(t *testing.T) {
	rep, page := benchHTML(t, "--max-requests", "60", "--max-duration", "20s")
	charts := embeddedCharts(t, page)
	checkDistributions(t, rep, charts)
	if len(charts) != len(htmlLatencies) {
		t.Errorf("%d charts, want %d (no load curves for one benchmark)", len(charts), len(htmlLatencies))
	}
	checkNamed(t, page, charts)
	checkOffline(t, page)
}

// TestBenchHTMLSweep: a sweep's curves against request rate are the JSON
// report's figures: x each benchmark's requests/s ascending, the p50 and
// p99 of TTFT, ITL and request latency of that benchmark (ms), goodput and
// attainment per objective set, the thresholds and target attainments as
// markers; and each benchmark's distributions as in TestBenchHTMLSingle.
func TestBenchHTMLSweep(t *testing.T) {
	rep, page := benchHTML(t, "--profile", "sweep", "--sweep-rates", "2", "--max-duration", "800ms")
	charts := embeddedCharts(t, page)
	if len(rep.Benchmarks) != 4 {
		t.Fatalf("%d benchmarks, want 4", len(rep.Benchmarks))
	}
	checkDistributions(t, rep, charts)
	order := make([]int, len(rep.Benchmarks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return rep.Benchmarks[order[a]].Window.RequestsPerSecond["all"] < rep.Benchmarks[order[b]].Window.RequestsPerSecond["all"]
	})
	objectives := rep.Benchmarks[0].Config.Objectives
	for _, m := range []struct{ id, key, quantity string }{{"load-time_to_first_token", "time_to_first_token", "ttft"},
		{"load-inter_token_latency", "inter_token_latency", "itl"}, {"load-request_latency", "request_latency", "latency"}} {
		c := charts[m.id]
		want := [][]*float64{{}, {}, {}}
		for _, i := range order {
			w := rep.Benchmarks[i].Window
			s := w.Summaries[m.key]["successful"]
			want[0] = append(want[0], ptr(w.RequestsPerSecond["all"]))
			want[1] = append(want[1], ptr(1000**s.Percentiles["p50"].Value))
			want[2] = append(want[2], ptr(1000**s.Percentiles["p99"].Value))
		}
		checkColumns(t, m.id, c.Data, want)
		var marks []float64
		for _, o := range objectives {
			if v, ok := o.Thresholds[m.quantity]; ok {
				marks = append(marks, 1000*v)
			}
		}
		checkMarkers(t, c, "y", marks)
	}
	gp, at := [][]*float64{{}, {}, {}, {}}, [][]*float64{{}, {}, {}}
	for _, i := range order {
		b := rep.Benchmarks[i]
		gp[0], at[0] = append(gp[0], ptr(b.Window.RequestsPerSecond["all"])), append(at[0], ptr(b.Window.RequestsPerSecond["all"]))
		gp[1] = append(gp[1], ptr(b.Window.RequestsPerSecond["successful"]))
		for j, s := range b.SLO {
			gp[2+j] = append(gp[2+j], s.Goodput)
			at[1+j] = append(at[1+j], ptr(100**s.Attainment))
		}
	}
	checkColumns(t, "load-goodput", charts["load-goodput"].Data, gp)
	checkColumns(t, "load-attainment", charts["load-attainment"].Data, at)
	checkMarkers(t, charts["load-attainment"], "y", []float64{90, 99})
	if n := len(htmlLatencies)*(1+len(rep.Benchmarks)) + 2; len(charts) != n {
		t.Errorf("%d charts, want %d", len(charts), n)
	}
	checkNamed(t, page, charts)
	checkOffline(t, page)
}

// checkDistributions checks every benchmark's distribution charts against
// its records and summaries.
func checkDistributions(t *testing.T, rep htmlTestDoc, charts map[string]testChart) {
	t.Helper()
	for i, b := range rep.Benchmarks {
		for _, m := range htmlLatencies {
			id := fmt.Sprintf("b%d-%s", i, m.key)
			c, ok := charts[id]
			if !ok || len(c.Data) != 2 || len(c.Data[0]) == 0 || len(c.Data[0]) != len(c.Data[1]) {
				t.Errorf("%s: chart %+v; want x and y of the same length", id, c)
				continue
			}
			var xs []float64
			for _, r := range b.Window.Records.Requests {
				if r.Outcome == "successful" && slices.Contains(r.Included, m.key) && !slices.Contains(xs, 1000*r.Values[m.key]) {
					xs = append(xs, 1000*r.Values[m.key])
				}
			}
			slices.Sort(xs)
			checkColumns(t, id, c.Data[:1], [][]*float64{ptrs(xs)})
			if last := c.Data[1][len(c.Data[1])-1]; last == nil || !near(*last, 100) {
				t.Errorf("%s: the curve ends at %v %%, want 100", id, last)
			}
			for _, p := range []struct {
				key   string
				share float64
			}{{"p50", 50}, {"p90", 90}, {"p99", 99}} {
				want := *b.Window.Summaries[m.key]["successful"].Percentiles[p.key].Value * 1000
				k := slices.IndexFunc(c.Data[1], func(y *float64) bool { return *y >= p.share*(1-1e-12) })
				if k < 0 || !near(*c.Data[0][k], want) {
					t.Errorf("%s: the curve first reaches %v %% at index %d, want at %s = %v ms", id, p.share, k, p.key, want)
				}
			}
			var marks []float64
			for _, o := range b.Config.Objectives {
				if v, ok := o.Thresholds[m.quantity]; ok {
					marks = append(marks, 1000*v)
				}
			}
			checkMarkers(t, c, "x", marks)
		}
	}
}

// checkColumns compares chart columns with want, value by value.
func checkColumns(t *testing.T, id string, got, want [][]*float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d columns, want %d", id, len(got), len(want))
		return
	}
	for j := range want {
		same := len(got[j]) == len(want[j])
		for k := 0; same && k < len(want[j]); k++ {
			g, w := got[j][k], want[j][k]
			same = (g == nil) == (w == nil) && (g == nil || near(*g, *w))
		}
		if !same {
			t.Errorf("%s: column %d is %v, want %v", id, j, deref(got[j]), deref(want[j]))
		}
	}
}

// checkMarkers checks that c's markers are on axis at want, in order.
func checkMarkers(t *testing.T, c testChart, axis string, want []float64) {
	t.Helper()
	var got []float64
	for _, m := range c.Markers {
		if m.Axis != axis {
			t.Errorf("%s: a marker on axis %s, want %s", c.ID, m.Axis, axis)
		}
		got = append(got, m.Value)
	}
	if !slices.EqualFunc(got, want, near) {
		t.Errorf("%s: markers at %v, want %v", c.ID, got, want)
	}
}

// checkNamed checks that every chart has its element and a title.
func checkNamed(t *testing.T, page string, charts map[string]testChart) {
	t.Helper()
	for id, c := range charts {
		if c.Title == "" || len(c.Series) == 0 || !strings.Contains(page, fmt.Sprintf(`<div class="bench-chart" id="%s"`, id)) {
			t.Errorf("chart %s: title %q, series %v, or no element", id, c.Title, c.Series)
		}
	}
}

// checkOffline checks that the page fetches nothing: uPlot and the styles
// are inline, and no URL but uPlot's banner appears.
func checkOffline(t *testing.T, page string) {
	t.Helper()
	if !strings.Contains(page, uPlotBanner) || !strings.Contains(page, ".uplot") {
		t.Errorf("uPlot's script or style sheet is not inline")
	}
	if m := externalRef.FindAllString(strings.Replace(page, uPlotBanner, "", 1), -1); m != nil {
		t.Errorf("the page refers outside itself: %q", m)
	}
}

func ptrs(xs []float64) []*float64 {
	out := make([]*float64, len(xs))
	for i := range xs {
		out[i] = &xs[i]
	}
	return out
}

func deref(xs []*float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		if x != nil {
			out[i] = *x
		}
	}
	return out
}

// TestIntegrationBenchHTML opens a sweep's HTML report in Debian's
// chromium headless, from the file and with every request outside it sent
// to a closed port, at 1280×900 and 390×844 in the light and dark colour
// schemes: no console error, exception or request outside the file; every
// chart of the embedded data is a uPlot chart that holds that chart's data
// and has drawn its canvas; the document is no wider than the viewport.
// Screenshots go to the test's artifact directory (go test -artifacts).
func TestIntegrationBenchHTML(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := chromiumBinary(t)
	_, page := benchHTML(t, "--profile", "sweep", "--sweep-rates", "1", "--max-duration", "600ms")
	charts := embeddedCharts(t, page)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, bin)
	log := watchBrowser(ctx, t, "file://"+dir)
	shots := t.ArtifactDir()
	for _, scheme := range []string{"light", "dark"} {
		for _, vp := range viewports {
			setView(ctx, t, vp.width, vp.height, scheme)
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file), pollTrue(`Array.isArray(window.benchPlots)`)); err != nil {
				t.Fatal(err)
			}
			checkPlots(ctx, t, charts)
			checkWidth(ctx, t, "bench report", vp.width)
			shoot(ctx, t, filepath.Join(shots, "bench-"+scheme+"-"+vp.name+".png"))
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, p := range log.problems {
		t.Error(p)
	}
	t.Logf("screenshots in %s", shots)
}

// browser starts chromium headless for the test's lifetime (at most a
// minute); every request not to the loopback goes to a closed local port.
func browser(t *testing.T, bin string) context.Context {
	t.Helper()
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-component-update", true), chromedp.Flag("no-pings", true),
		chromedp.ProxyServer("127.0.0.1:9"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(func() { cancel(); cancelBrowser(); cancelAlloc() })
	return ctx
}

// checkPlots checks that each chart is drawn: its uPlot instance holds the
// embedded data, and its canvas has pixels that are not blank.
func checkPlots(ctx context.Context, t *testing.T, charts map[string]testChart) {
	t.Helper()
	type plot struct {
		ID     string       `json:"id"`
		Data   [][]*float64 `json:"data"`
		Inked  bool         `json:"inked"`
		Series int          `json:"series"`
	}
	plots := eval[[]plot](ctx, t, `window.benchPlots.map(u => {
		const c = u.ctx.canvas, px = u.ctx.getImageData(0, 0, c.width, c.height).data;
		let inked = false;
		for (let i = 3; i < px.length && !inked; i += 4) inked = px[i] !== 0;
		return {id: u.root.parentElement.id, data: u.data, inked, series: u.series.length};
	})`)
	if len(plots) != len(charts) {
		t.Errorf("%d charts drawn, want %d", len(plots), len(charts))
	}
	for _, p := range plots {
		c, ok := charts[p.ID]
		if !ok || !p.Inked || p.Series != len(c.Series)+1 || len(p.Data) == 0 || len(p.Data[0]) == 0 {
			t.Errorf("chart %s: drawn %v with %d series and %d points; want the embedded chart, drawn", p.ID, p.Inked, p.Series, len(p.Data))
			continue
		}
		checkColumns(t, p.ID, p.Data, c.Data)
	}
}

// TestBenchHTMLHandComputed draws a hand-written report of a goodput
// search: benchmark 0's ITL distribution weighs its three successful
// records by their output tokens − 1 (2, 1 and 1 intervals: 2 ms at 50 %,
// 3 ms at 100 %, the 3 ms ones merged), leaves out the errored record and
// the one not included, and the page states the load found; benchmark 1
// ended in its warmup and says so.
func TestBenchHTMLHandComputed(t *testing.T) {
	rec := func(outcome string, itl float64, tokens int, included bool) string {
		inc := `[]`
		if included {
			inc = `["inter_token_latency"]`
		}
		return fmt.Sprintf(`{"outcome": %q, "weight": 1, "output_tokens": %d, "values": {"inter_token_latency": %v}, "included": %s}`,
			outcome, tokens, itl, inc)
	}
	records := strings.Join([]string{rec("successful", 0.003, 2, true), rec("successful", 0.002, 3, true),
		rec("successful", 0.003, 2, true), rec("errored", 0.001, 3, true), rec("successful", 0.0005, 3, false)}, ",")
	objectives := `[{"name": "default", "thresholds_seconds": {"itl": 0.0025}, "target_attainment": 0.9}]`
	doc := fmt.Sprintf(`{"profile": "goodput", "benchmarks": [
	  {"label": "constant 4/s", "config": {"target": "t", "objectives": %s}, "stop_reason": "max_requests",
	   "window": {"measuring": true, "requests": {"successful": 4, "errored": 1, "incomplete": 0},
	              "requests_per_second": {"all": 5, "successful": 4}, "records": {"requests": [%s]}},
	   "slo": [{"objective": "default", "attainment": 0.95, "goodput_requests_per_second": 3.8, "verdict": "met"}]},
	  {"label": "constant 8/s", "config": {"target": "t", "objectives": %s}, "stop_reason": "max_duration",
	   "window": {"measuring": false, "requests_per_second": {"all": null}}, "slo": []}],
	 "goodput": {"objective": "default", "load": "rate", "steps": [{"load": 4, "benchmark": 0}, {"load": 8, "benchmark": 1}],
	             "found": {"load": 4, "benchmark": 0, "slo": {"objective": "default", "attainment": 0.95, "goodput_requests_per_second": 3.8}}}}`,
		objectives, records, objectives)
	var page strings.Builder
	if err := writeBenchHTML(&page, []byte(doc)); err != nil {
		t.Fatal(err)
	}
	charts := embeddedCharts(t, page.String())
	itl := charts["b0-inter_token_latency"]
	checkColumns(t, itl.ID, itl.Data, [][]*float64{{ptr(2), ptr(3)}, {ptr(50), ptr(100)}})
	checkMarkers(t, itl, "x", []float64{2.5})
	checkColumns(t, "load-goodput", charts["load-goodput"].Data, [][]*float64{{ptr(5)}, {ptr(4)}, {ptr(3.8)}})
	for _, want := range []string{"highest load met 4 (constant 4/s), attainment 95.00%, goodput 3.800 requests/s",
		"the run ended before its warmup did: nothing measured", "<td>4 / 1 / 0</td>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if _, ok := charts["b1-inter_token_latency"]; ok {
		t.Errorf("benchmark 1 measured nothing but has a chart")
	}
	checkOffline(t, page.String())
}

// TestBenchHTMLUnwritable: an --html file that cannot be created is bad
// input, refused before any request (exit 2, naming the flag).
func TestBenchHTMLUnwritable(t *testing.T) {
	cfg := writeFile(t, "c.yml", `targets:
  - {name: t, base_url: "http://127.0.0.1:9/v1", model: m}
`)
	path := filepath.Join(t.TempDir(), "no", "r.html")
	code, _, stderr := runBenchConfig(context.Background(), t, "--config", cfg, "--max-requests", "1", "--html", path)
	want := "could not create --html report " + path + ": could not create a temporary file beside it: no such file or directory"
	if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "invalid configuration") {
		t.Errorf("exit %d, %q; want 2 and %q", code, stderr, want)
	}
}
