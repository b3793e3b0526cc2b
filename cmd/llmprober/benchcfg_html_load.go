package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// loadSection is the curves of a sweep or goodput search against the
// request rate (finished requests/s) of each measured benchmark.
func loadSection(benchmarks []htmlBenchmark) htmlSection {
	var bs []htmlBenchmark
	for _, b := range benchmarks {
		if b.Window.Measuring && b.Window.RequestsPerSecond["all"] != nil {
			bs = append(bs, b)
		}
	}
	slices.SortStableFunc(bs, func(a, b htmlBenchmark) int {
		return cmp.Compare(*a.Window.RequestsPerSecond["all"], *b.Window.RequestsPerSecond["all"])
	})
	s := htmlSection{Title: "Against request rate",
		Note: "one point per benchmark at its request rate (finished requests/s); p50 and p99 of the successful requests; dashed: SLO thresholds and target attainments"}
	xs := make([]*float64, len(bs))
	for i, b := range bs {
		xs[i] = b.Window.RequestsPerSecond["all"]
	}
	var objectives []benchDocObjectives
	if len(bs) > 0 {
		objectives = bs[0].Config.Objectives
	}
	for _, m := range htmlLatencies {
		c := htmlChart{ID: "load-" + m.key, Title: m.title + " against request rate", XLabel: "request rate (requests/s)",
			YLabel: m.title + " (ms)", Series: []string{m.title + " p50", m.title + " p99"}}
		c.Data = [][]*float64{xs, latencies(bs, m.key, "p50"), latencies(bs, m.key, "p99")}
		c.Markers = thresholds(objectives, m.quantity, "y")
		s.Charts = append(s.Charts, c)
	}
	s.Charts = append(s.Charts, goodputChart(bs, xs), attainmentChart(bs, xs, objectives))
	return s
}

// latencies is each benchmark's percentile (key) of metric, in
// milliseconds.
func latencies(bs []htmlBenchmark, metric, key string) []*float64 {
	out := make([]*float64, len(bs))
	for i, b := range bs {
		if v := b.Window.Summaries[metric]["successful"].percentile(key); v != nil {
			out[i] = ptr(1000 * *v)
		}
	}
	return out
}

// goodputChart is each objective set's goodput beside the successful
// request rate.
func goodputChart(bs []htmlBenchmark, xs []*float64) htmlChart {
	c := htmlChart{ID: "load-goodput", Title: "Goodput against request rate", XLabel: "request rate (requests/s)",
		YLabel: "requests/s", Series: []string{"successful requests/s"}, Markers: []htmlMarker{}}
	ok := make([]*float64, len(bs))
	for i, b := range bs {
		ok[i] = b.Window.RequestsPerSecond["successful"]
	}
	c.Data = [][]*float64{xs, ok}
	for j, name := range sloNames(bs) {
		c.Series = append(c.Series, "goodput "+name)
		col := make([]*float64, len(bs))
		for i, b := range bs {
			if j < len(b.SLO) {
				col[i] = b.SLO[j].Goodput
			}
		}
		c.Data = append(c.Data, col)
	}
	return c
}

// attainmentChart is each objective set's attainment (%), its target
// attainment as a marker.
func attainmentChart(bs []htmlBenchmark, xs []*float64, objectives []benchDocObjectives) htmlChart {
	c := htmlChart{ID: "load-attainment", Title: "SLO attainment against request rate", XLabel: "request rate (requests/s)",
		YLabel: "attainment (%)", Data: [][]*float64{xs}, Markers: []htmlMarker{}}
	for j, name := range sloNames(bs) {
		c.Series = append(c.Series, "attainment "+name)
		col := make([]*float64, len(bs))
		for i, b := range bs {
			if j < len(b.SLO) && b.SLO[j].Attainment != nil {
				col[i] = ptr(100 * *b.SLO[j].Attainment)
			}
		}
		c.Data = append(c.Data, col)
	}
	for _, o := range objectives {
		c.Markers = append(c.Markers, htmlMarker{Axis: "y", Value: 100 * o.Attainment,
			Label: o.Name + " target " + strconv.FormatFloat(100*o.Attainment, 'f', -1, 64) + "%"})
	}
	return c
}

// sloNames are the objective sets' names, as the first benchmark lists them.
func sloNames(bs []htmlBenchmark) []string {
	var out []string
	if len(bs) > 0 {
		for _, s := range bs[0].SLO {
			out = append(out, s.Objective)
		}
	}
	return out
}

// htmlRow is one benchmark's line of the summary table.
type htmlRow struct {
	Label, Stop, Requests, Rate, TTFT, ITL, Latency string
	SLO                                             []string
}

// rowOf is benchmark b's summary row: requests, rate, p50 / p99 of TTFT,
// ITL and request latency in milliseconds, each objective set's verdict.
func rowOf(b htmlBenchmark) htmlRow {
	w := b.Window
	r := htmlRow{Label: b.Label, Stop: b.StopReason,
		Requests: fmt.Sprintf("%d / %d / %d", w.Requests["successful"], w.Requests["errored"], w.Requests["incomplete"]),
		Rate:     floatText(w.RequestsPerSecond["all"], 2)}
	pair := func(key string) string {
		s := w.Summaries[key]["successful"]
		return msText(s.percentile("p50")) + " / " + msText(s.percentile("p99"))
	}
	r.TTFT, r.ITL, r.Latency = pair("time_to_first_token"), pair("inter_token_latency"), pair("request_latency")
	for _, s := range b.SLO {
		text := s.Objective + ": " + s.Verdict
		if s.Attainment != nil {
			text += " (" + strconv.FormatFloat(100**s.Attainment, 'f', 2, 64) + "%)"
		}
		r.SLO = append(r.SLO, text)
	}
	return r
}

// msText shows seconds as milliseconds with one decimal, or "—".
func msText(v *float64) string {
	if v == nil {
		return "—"
	}
	return msFixed(*v)
}
