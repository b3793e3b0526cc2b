package exporter

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/llmprober/llmprober/exporter/web"
	"github.com/llmprober/llmprober/slo/window"
)

// verdictTexts are the badges' words for the verdicts of slo.Judge.
var verdictTexts = map[string]string{"met": "met", "breached": "breaching", "inconclusive": "not enough data"}

// overview fills the overview's rows from statuses and the windows (w may
// be nil: the rows then have no window figures).
func (w *Windows) overview(page *web.Overview, statuses []TargetStatus) {
	page.Interval, page.Window, page.Confidence = window.Name(window.DefaultHistoryInterval), absent, absent
	for i := range statuses {
		st := &statuses[i]
		row := web.OverviewTarget{
			Name: st.Target.Name, Link: "/targets/" + url.PathEscape(st.Target.Name),
			State: string(st.State), StateClass: string(st.State),
			Rate: absent, ErrorRatio: absent, Drops: absent,
			LatencyQuantity: window.RequestLatency.String(), LatencyTitle: "Latency p50 / p99, last hour",
		}
		if st.Target.Stream {
			row.LatencyQuantity, row.LatencyTitle = window.TTFT.String(), "TTFT p50 / p99, last hour"
		}
		if wt := w.lookup(row.Name); wt != nil {
			w.overviewFigures(page, &row, wt.store)
		}
		page.Targets = append(page.Targets, row)
	}
}

// overviewFigures fills row from the store's longest window, and the
// attainment of every window.
func (w *Windows) overviewFigures(page *web.Overview, row *web.OverviewTarget, store *window.Store) {
	snaps := store.CurrentAll()
	if len(snaps) == 0 {
		return
	}
	longest := snaps[0]
	for _, s := range snaps {
		if s.Window > longest.Window {
			longest = s
		}
	}
	page.Window = window.Name(longest.Window)
	interval, _ := store.HistorySpan()
	page.Interval = window.Name(interval)
	if c := store.Confidence(); c > 0 {
		page.Confidence = strconv.FormatFloat(100*c, 'f', -1, 64) + " %"
	}
	row.Rate = rateText(longest.RequestRate.All)
	if longest.Measuring {
		r := longest.Requests
		if n := r.Successful + r.Errored; n > 0 {
			row.ErrorRatio = strconv.FormatFloat(100*float64(r.Errored)/float64(n), 'f', 1, 64) + "% of " + strconv.FormatInt(n, 10)
		}
		row.Drops = strconv.FormatInt(sum(longest.Probes.Dropped), 10) + " of " + strconv.FormatInt(longest.Probes.Scheduled, 10) + " due"
	}
	for i := range longest.Objectives {
		a := &longest.Objectives[i]
		v := a.Verdict.String()
		row.Objectives = append(row.Objectives, web.Objective{Name: a.Objective, Verdict: v, Text: verdictTexts[v],
			Attainment: objectiveWindows(snaps, i)})
	}
}

// objectiveWindows is "1m 100.0% [72.2, 100.0] · 5m — of 99%": objective
// set i's attainment with its interval in every window.
func objectiveWindows(snaps []*window.Snapshot, i int) string {
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
	var parts []string
	target := ""
	for _, s := range snaps {
		if i >= len(s.Objectives) {
			continue
		}
		a := s.Objectives[i]
		target = " of " + strconv.FormatFloat(100*a.Target, 'f', -1, 64) + "%"
		text := s.Name() + " " + absent
		if a.Ratio != nil {
			text = s.Name() + " " + pct(*a.Ratio) + "%"
			if a.CI != nil {
				text += " [" + pct(a.CI.Lo) + ", " + pct(a.CI.Hi) + "]"
			}
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " · ") + target
}
