package main

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"

	"github.com/llmprober/llmprober/exporter/web"
)

// htmlLatencies are the metrics the HTML report draws: their distribution
// per benchmark, and their p50 and p99 against the request rate; the window
// document's summary key, the title and the objective quantity whose
// threshold is drawn on it.
var htmlLatencies = []struct{ key, title, quantity string }{
	{"time_to_first_token", "TTFT", "ttft"},
	{"inter_token_latency", "ITL", "itl"},
	{"request_latency", "request latency", "latency"},
}

// htmlMaxPoints bounds the points of one distribution: a larger sample is
// drawn at that many evenly spaced ranks (the last always kept), within
// 1/htmlMaxPoints of the share.
const htmlMaxPoints = 2000

// The HTML report's page, and the style and script it adds to uPlot's and
// the status pages' style sheet.
var (
	//go:embed benchhtml/report.html
	htmlPageText string
	//go:embed benchhtml/report.css
	htmlStyle string
	//go:embed benchhtml/report.js
	htmlScript   string
	htmlTemplate = template.Must(template.New("report").Parse(htmlPageText))
)

// htmlReport is what the HTML report reads of the JSON report.
type htmlReport struct {
	Profile    string          `json:"profile"`
	Benchmarks []htmlBenchmark `json:"benchmarks"`
	Goodput    *goodputDoc     `json:"goodput"`
}

// htmlBenchmark is one benchmark of the JSON report.
type htmlBenchmark struct {
	Label  string `json:"label"`
	Config struct {
		Target     string               `json:"target"`
		Model      string               `json:"model"`
		API        string               `json:"api"`
		Objectives []benchDocObjectives `json:"objectives"`
	} `json:"config"`
	StopReason string        `json:"stop_reason"`
	Window     htmlWindow    `json:"window"`
	SLO        []benchDocSLO `json:"slo"`
}

// htmlWindow is the part of the window document the charts draw.
type htmlWindow struct {
	Measuring         bool                              `json:"measuring"`
	Requests          map[string]int64                  `json:"requests"`
	RequestsPerSecond map[string]*float64               `json:"requests_per_second"`
	Summaries         map[string]map[string]htmlSummary `json:"summaries"`
	Records           struct {
		Requests []htmlRecord `json:"requests"`
	} `json:"records"`
}

// htmlSummary is one summary's count and percentiles, in seconds.
type htmlSummary struct {
	Count       float64 `json:"count"`
	Percentiles map[string]struct {
		Value *float64 `json:"value"`
	} `json:"percentiles"`
}

// percentile is the value at key ("p50"), nil when absent.
func (s htmlSummary) percentile(key string) *float64 { return s.Percentiles[key].Value }

// htmlRecord is one request of the window's records.
type htmlRecord struct {
	Outcome      string             `json:"outcome"`
	Weight       float64            `json:"weight"`
	OutputTokens *int64             `json:"output_tokens"`
	Values       map[string]float64 `json:"values"`
	Included     []string           `json:"included"`
}

// weightOf is the record's weight in the summary of metric: its sampling
// weight, times its output tokens − 1 for the token-weighted ITL.
func (r htmlRecord) weightOf(metric string) float64 {
	if metric == "inter_token_latency" && r.OutputTokens != nil {
		return r.Weight * float64(*r.OutputTokens-1)
	}
	return r.Weight
}

// htmlChart is one chart: Data[0] the x values, Data[i] series i's y
// values (null where it has none), Markers the threshold lines.
type htmlChart struct {
	ID      string       `json:"id"`
	Title   string       `json:"title"`
	XLabel  string       `json:"x_label"`
	YLabel  string       `json:"y_label"`
	Step    bool         `json:"step"`
	Series  []string     `json:"series"`
	Data    [][]*float64 `json:"data"`
	Markers []htmlMarker `json:"markers"`
}

// htmlMarker is a threshold line: at Value on the axis "x" (vertical) or
// "y" (horizontal).
type htmlMarker struct {
	Axis  string  `json:"axis"`
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// htmlSection is a heading and its charts.
type htmlSection struct {
	Title, Note string
	Charts      []htmlChart
}

// htmlPage is the template's data.
type htmlPage struct {
	Title string
	// Search is the goodput search's outcome; empty for other profiles.
	Search   string
	Rows     []htmlRow
	Sections []htmlSection
	Charts   []htmlChart
	Style    template.CSS
	Script   template.JS
}

// writeBenchHTML writes the HTML report of the JSON report doc: one file
// that carries its data, scripts and styles.
func writeBenchHTML(w io.Writer, doc []byte) error {
	var rep htmlReport
	if err := json.Unmarshal(doc, &rep); err != nil {
		return fmt.Errorf("could not read report: %w", err)
	}
	c := rep.Benchmarks[0].Config
	page := htmlPage{
		Title:  fmt.Sprintf("llmprober bench: target %s, model %s (%s), %s", c.Target, c.Model, c.API, rep.Profile),
		Style:  template.CSS(web.Inline("uplot/uPlot.min.css") + web.Inline("style.css") + htmlStyle),
		Script: template.JS(web.Inline("uplot/uPlot.iife.min.js") + "\n" + htmlScript),
	}
	if rep.Goodput != nil {
		page.Search = searchText(rep.Goodput, rep.Benchmarks)
	}
	for i, b := range rep.Benchmarks {
		page.Rows = append(page.Rows, rowOf(b))
		page.Sections = append(page.Sections, distributionSection(i, b))
	}
	if rep.Profile != profileSingle && len(rep.Benchmarks) > 1 {
		page.Sections = append([]htmlSection{loadSection(rep.Benchmarks)}, page.Sections...)
	}
	for _, s := range page.Sections {
		page.Charts = append(page.Charts, s.Charts...)
	}
	return htmlTemplate.Execute(w, page)
}

// searchText is the goodput search's outcome: the load found, its
// benchmark and its attainment and goodput, or that no load was met.
func searchText(g *goodputDoc, bs []htmlBenchmark) string {
	text := fmt.Sprintf("goodput search (objective set %s, by %s, %d steps): ", g.Objective, g.Load, len(g.Steps))
	if g.Found == nil {
		return text + "no load met the objective set"
	}
	f := g.Found
	text += fmt.Sprintf("highest load met %s (%s)", strconv.FormatFloat(f.Load, 'f', -1, 64), bs[f.Benchmark].Label)
	if f.SLO.Attainment != nil {
		text += ", attainment " + strconv.FormatFloat(100**f.SLO.Attainment, 'f', 2, 64) + "%"
	}
	return text + ", goodput " + floatText(f.SLO.Goodput, 3) + " requests/s"
}

// distributionSection is benchmark i's distributions of TTFT, ITL and
// request latency of its successful requests.
func distributionSection(i int, b htmlBenchmark) htmlSection {
	s := htmlSection{Title: fmt.Sprintf("Benchmark %d: %s", i+1, b.Label),
		Note: "share of the successful requests at or below each value (ITL weighted by tokens); dashed: SLO thresholds"}
	if !b.Window.Measuring {
		s.Note = "the run ended before its warmup did: nothing measured"
		return s
	}
	for _, d := range htmlLatencies {
		c := htmlChart{ID: fmt.Sprintf("b%d-%s", i, d.key), Title: d.title + " (" + b.Label + ")",
			XLabel: d.title + " (ms)", YLabel: "requests (%)", Step: true, Series: []string{"share at or below"}}
		c.Data = distribution(b.Window.Records.Requests, d.key)
		c.Markers = thresholds(b.Config.Objectives, d.quantity, "x")
		s.Charts = append(s.Charts, c)
	}
	return s
}

// distribution is the cumulative distribution of metric over the
// successful records that count in its summary: x the distinct values in
// milliseconds ascending, y the weighted share (%) at or below each.
func distribution(records []htmlRecord, metric string) [][]*float64 {
	type point struct{ v, w float64 }
	var pts []point
	total := 0.0
	for _, r := range records {
		if r.Outcome != "successful" || !slices.Contains(r.Included, metric) {
			continue
		}
		pts = append(pts, point{r.Values[metric], r.weightOf(metric)})
		total += r.weightOf(metric)
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.v, b.v) })
	xs, ys := []*float64{}, []*float64{}
	cum := 0.0
	for i, p := range pts {
		cum += p.w
		if i+1 < len(pts) && pts[i+1].v == p.v {
			continue
		}
		xs, ys = append(xs, ptr(1000*p.v)), append(ys, ptr(100*cum/total))
	}
	return [][]*float64{thin(xs), thin(ys)}
}

// thin keeps at most htmlMaxPoints of values, at evenly spaced indexes,
// the first and last included.
func thin(values []*float64) []*float64 {
	n := len(values)
	if n <= htmlMaxPoints {
		return values
	}
	out := make([]*float64, htmlMaxPoints)
	for j := range out {
		out[j] = values[j*(n-1)/(htmlMaxPoints-1)]
	}
	return out
}

// thresholds are the objective sets' thresholds of quantity, in
// milliseconds, as markers on axis.
func thresholds(objectives []benchDocObjectives, quantity, axis string) []htmlMarker {
	out := []htmlMarker{}
	for _, o := range objectives {
		if v, ok := o.Thresholds[quantity]; ok {
			out = append(out, htmlMarker{Axis: axis, Value: 1000 * v, Label: o.Name + " " + quantity + " SLO"})
		}
	}
	return out
}

// ptr returns a pointer to v.
func ptr(v float64) *float64 { return &v }
