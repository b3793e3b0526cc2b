package exporter

import (
	"fmt"
	"html/template"
	"slices"
	"strconv"

	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// The landing page's window tables: per target and window the main figures
// of successful requests with their intervals, in the metrics reference's
// console style: a mean with the half-width of its interval ("80.5 ± 3.9
// ms"), a percentile with its interval ("95.1 ms [90.2, 101.3]") or "*"
// when the sample cannot bound it, "≈" before a figure estimated from a
// sample.
var _ = template.Must(landingTemplate.New("windows").Parse(`{{if .}}<h2>Rolling windows (successful requests)</h2>
<p>{{.Legend}}</p>
{{range .Targets}}<h3>{{.Name}}</h3>
<table border="1">
<tr><th>Window</th><th>Probes (due/sent/dropped)</th><th>Requests (ok/errored/incomplete)</th><th>Requests/s</th><th>Output tokens/s</th><th>Concurrency</th>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Window}}</td><td>{{.Probes}}</td><td>{{.Requests}}</td><td>{{.Rate}}</td><td>{{.TokenRate}}</td><td>{{.Concurrency}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{end}}`))

// landingColumn is one summary figure of the window tables.
type landingColumn struct {
	title  string
	metric window.Metric
	level  *stats.Level // nil for the mean
}

var (
	p50, p90, p99  = stats.P50, stats.P90, stats.P99
	landingColumns = []landingColumn{
		{"Latency mean", window.RequestLatency, nil},
		{"Latency p50", window.RequestLatency, &p50},
		{"Latency p99", window.RequestLatency, &p99},
		{"TTFT mean", window.TTFT, nil},
		{"TTFT p50", window.TTFT, &p50},
		{"TTFT p90", window.TTFT, &p90},
		{"TTFT p99", window.TTFT, &p99},
		{"ITL mean", window.ITL, nil},
		{"ITL p99", window.ITL, &p99},
		{"TPOT mean", window.TPOT, nil},
	}
	// roundTripColumns are added for realtime WebSocket targets.
	roundTripColumns = []landingColumn{
		{"Last round trip mean", window.TimeToLastRoundTrip, nil},
		{"Avg RTT mean", window.AverageRTT, nil},
		{"Avg RTT p99", window.AverageRTT, &p99},
	}
)

// landingWindows is the data of the "windows" template.
type landingWindows struct {
	Legend  string
	Targets []landingWindowTarget
}

// landingWindowTarget is one target's table.
type landingWindowTarget struct {
	Name    string
	Columns []string
	Rows    []landingWindowRow
}

// landingWindowRow is one window's row, every value formatted.
type landingWindowRow struct {
	Window, Probes, Requests, Rate, TokenRate, Concurrency string
	Cells                                                  []string
}

// landing returns the window tables, or nil without targets.
func (w *Windows) landing() *landingWindows {
	if w == nil || len(w.targets) == 0 {
		return nil
	}
	out := &landingWindows{Legend: legend(w.targets[0].store.Confidence())}
	states := w.states()
	for _, wt := range w.targets {
		t := landingWindowTarget{Name: wt.store.Target()}
		cols := landingColumns
		if states[t.Name].Target.API == apiRealtime {
			cols = slices.Concat(landingColumns, roundTripColumns)
		}
		for _, c := range cols {
			t.Columns = append(t.Columns, c.title)
		}
		for _, o := range wt.store.Objectives() {
			t.Columns = append(t.Columns, "SLO "+o.Name)
		}
		for _, snap := range wt.store.CurrentAll() {
			t.Rows = append(t.Rows, newLandingWindowRow(snap, cols))
		}
		out.Targets = append(out.Targets, t)
	}
	return out
}

// legend explains the notation at confidence level c.
func legend(c float64) string {
	if c == 0 {
		return "Confidence intervals are off. ≈: estimated from a sample."
	}
	pct := strconv.FormatFloat(100*c, 'f', -1, 64)
	return "Means ± the half-width of their " + pct + " % interval; percentiles with their " + pct +
		" % interval, * where the sample is too small to bound it; ≈: estimated from a sample."
}

// newLandingWindowRow formats one window with the columns cols.
func newLandingWindowRow(s *window.Snapshot, cols []landingColumn) landingWindowRow {
	row := landingWindowRow{
		Window:      s.Name(),
		Requests:    fmt.Sprintf("%d / %d / %d", s.Requests.Successful, s.Requests.Errored, s.Requests.Incomplete),
		Rate:        rateText(s.RequestRate.Successful),
		TokenRate:   rateText(s.OutputTokenRate.Successful),
		Concurrency: numberText(s.Concurrency, 2),
	}
	row.Probes = fmt.Sprintf("%d / %d / %d", s.Probes.Scheduled, s.Probes.Sent, sum(s.Probes.Dropped))
	if !s.Measuring {
		row.Window += " (not measuring yet)"
		row.Requests, row.Probes = absent, absent
	} else if s.Approximate {
		row.Window += " ≈ (from " + s.Start.UTC().Format("15:04:05") + ")"
	}
	for _, c := range cols {
		sum := s.Summary(c.metric).Successful
		if c.level == nil {
			row.Cells = append(row.Cells, meanText(sum))
		} else {
			row.Cells = append(row.Cells, percentileText(sum, *c.level, s.Confidence))
		}
	}
	for _, a := range s.Objectives {
		row.Cells = append(row.Cells, attainmentText(a))
	}
	return row
}

// sum adds ns.
func sum(ns []int64) int64 {
	var t int64
	for _, n := range ns {
		t += n
	}
	return t
}

// attainmentText is "attainment 80.0% [49.0, 94.3] of 99%, goodput
// 0.800/s", without the interval when it is absent, or absent without
// evaluated requests.
func attainmentText(a window.Attainment) string {
	if a.Ratio == nil {
		return absent
	}
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
	text := "attainment " + pct(*a.Ratio) + "%"
	if a.CI != nil {
		text += " [" + pct(a.CI.Lo) + ", " + pct(a.CI.Hi) + "]"
	}
	text += " of " + strconv.FormatFloat(100*a.Target, 'f', -1, 64) + "%"
	if a.Goodput != nil {
		text += ", goodput " + rateText(a.Goodput)
	}
	return text
}

// meanText is "80.5 ± 3.9 ms", or "80.5 ms" without an interval, or absent.
func meanText(s window.Summary) string {
	if s.Mean == nil {
		return absent
	}
	if s.MeanCI == nil {
		return msText(*s.Mean) + " ms"
	}
	return msText(*s.Mean) + " ± " + msText((s.MeanCI.Hi-s.MeanCI.Lo)/2) + " ms"
}

// percentileText is "95.1 ms [90.2, 101.3]", "95.1 ms*" when intervals are
// on and the sample cannot bound it, "≈95.1 ms" when estimated, or absent.
func percentileText(s window.Summary, l stats.Level, confidence float64) string {
	for _, p := range s.Percentiles {
		if p.Level != l || p.Value == nil {
			continue
		}
		text := msText(*p.Value) + " ms"
		switch {
		case s.Approximate:
			text = "≈" + text
		case p.CI != nil:
			text += " [" + msText(p.CI.Lo) + ", " + msText(p.CI.Hi) + "]"
		case confidence > 0 && !s.Weighted:
			text += "*"
		}
		return text
	}
	return absent
}

// msText formats seconds as milliseconds with one decimal.
func msText(seconds float64) string {
	return strconv.FormatFloat(seconds*1000, 'f', 1, 64)
}

// numberText formats *v with the given decimals, or absent.
func numberText(v *float64, decimals int) string {
	if v == nil {
		return absent
	}
	return strconv.FormatFloat(*v, 'f', decimals, 64)
}

// rateText formats a rate per second with three decimals, or absent.
func rateText(v *float64) string {
	if v == nil {
		return absent
	}
	return numberText(v, 3) + "/s"
}
