package exporter

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/llmprober/llmprober/exporter/web"
	"github.com/llmprober/llmprober/probe"
)

// absent is shown for a value that does not exist, never 0.
const absent = "—"

// landing renders the overview page: one row per target.
func (s *Server) landing(w http.ResponseWriter, _ *http.Request) {
	page := web.Overview{Version: s.opts.Version, ConfigPath: s.opts.ConfigPath}
	var statuses []TargetStatus
	if s.opts.Observer != nil {
		statuses = s.opts.Observer.Status()
	}
	s.opts.Windows.overview(&page, statuses)
	s.render(w, func(buf *bytes.Buffer) error { return web.RenderOverview(buf, &page) })
}

// targetPage renders the page of target {name}; 404 for an unknown one.
func (s *Server) targetPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var st *TargetStatus
	if s.opts.Observer != nil {
		for _, ts := range s.opts.Observer.Status() {
			if ts.Target.Name == name {
				st = &ts
				break
			}
		}
	}
	if st == nil {
		http.Error(w, fmt.Sprintf("unknown target %q", name), http.StatusNotFound)
		return
	}
	page := web.TargetPage{Version: s.opts.Version, ConfigPath: s.opts.ConfigPath, Name: name, Summary: newLandingTarget(st),
		API: web.APILinks{History: apiPath(name, "history"), Recent: apiPath(name, "recent")}}
	for _, p := range st.Recent {
		page.Recent = append(page.Recent, newLandingProbe(&p))
	}
	s.opts.Windows.targetPage(&page, st)
	s.render(w, func(buf *bytes.Buffer) error { return web.RenderTarget(buf, &page) })
}

// apiPath is /api/v1/targets/{name}/{rest}, the name escaped.
func apiPath(name, rest string) string {
	return "/api/v1/targets/" + url.PathEscape(name) + "/" + rest
}

// render writes the HTML that f renders, or a 500 when it fails.
func (s *Server) render(w http.ResponseWriter, f func(*bytes.Buffer) error) {
	var buf bytes.Buffer
	if err := f(&buf); err != nil {
		s.opts.Logger.Error("could not render page", "err", err)
		http.Error(w, "could not render page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

// newLandingTarget formats one target's status.
func newLandingTarget(st *TargetStatus) web.TargetRow {
	t := st.Target
	return web.TargetRow{
		Name: t.Name, Model: probe.Printable(t.Model), API: t.API, Stream: strconv.FormatBool(t.Stream),
		Server: serverHost(t), State: stateText(st),
		Successful: st.Counts[probe.Successful], Errored: st.Counts[probe.Errored],
		Incomplete: st.Counts[probe.Incomplete],
		Scheduled:  st.Probes.Scheduled, Sent: st.Probes.Sent, Dropped: droppedText(st.Probes),
	}
}

// newLandingProbe formats one recent request.
func newLandingProbe(p *ProbeSummary) web.ProbeRow {
	return web.ProbeRow{
		Time: timeText(p.Time), Seq: strconv.FormatUint(p.Seq, 10), Outcome: string(p.Outcome),
		ErrorType: orAbsent(string(p.ErrorType)), ErrorCode: orAbsent(probe.Printable(p.ErrorCode.String())), Error: orAbsent(p.Error),
		HTTPStatus: statusText(p.HTTPStatus),
		Latency:    durationText(p.Latency), TTFT: durationText(p.TTFT), TTFOT: durationText(p.TTFOT),
		ITL: durationText(p.ITL), TPOT: durationText(p.TPOT),
		OutputTokens: tokensText(p.OutputTokens, p.OutputTokensFrom), Usage: usageText(p.UsageInconsistent, p.TokensClamped),
	}
}

// droppedText is the total of drops with their share of the scheduled
// requests and the count of each reason that happened: "128 (30.8%;
// queue_full 128)", "2 (shutdown 2)" with nothing scheduled, or "0".
func droppedText(p ProbeCounts) string {
	total := p.DroppedTotal()
	if total == 0 {
		return "0"
	}
	var reasons []string
	for _, r := range probe.DropReasons {
		if n := p.Dropped[r]; n > 0 {
			reasons = append(reasons, string(r)+" "+strconv.FormatUint(n, 10))
		}
	}
	detail := strings.Join(reasons, ", ")
	if p.Scheduled > 0 {
		detail = strconv.FormatFloat(100*float64(total)/float64(p.Scheduled), 'f', 1, 64) + "%; " + detail
	}
	return strconv.FormatUint(total, 10) + " (" + detail + ")"
}

// usageText says what was wrong with a request's usage report: "inconsistent"
// (not taken as reported), "clamped" (a count too large to hold), both, or absent.
func usageText(inconsistent, clamped bool) string {
	switch {
	case inconsistent && clamped:
		return "inconsistent, clamped"
	case inconsistent:
		return "inconsistent"
	case clamped:
		return "clamped"
	}
	return absent
}

// serverHost is host:port of the target's base URL, or absent.
func serverHost(t Target) string {
	switch {
	case t.ServerAddress == "":
		return absent
	case t.ServerPort == 0:
		return t.ServerAddress
	default:
		return net.JoinHostPort(t.ServerAddress, strconv.Itoa(t.ServerPort))
	}
}

// stateText is the start-up state, with the time waited unless ready.
func stateText(st *TargetStatus) string {
	if st.State == probe.StateReady {
		return string(st.State)
	}
	return fmt.Sprintf("%s (%.1f s)", st.State, st.Waited.Seconds())
}

// orAbsent returns s, or absent when s is empty.
func orAbsent(s string) string {
	if s == "" {
		return absent
	}
	return s
}

// timeText formats t in UTC with milliseconds, or absent when zero.
func timeText(t time.Time) string {
	if t.IsZero() {
		return absent
	}
	return t.UTC().Format("2006-01-02 15:04:05.000Z")
}

// statusText is the HTTP status code, or absent when no response arrived.
func statusText(code int) string {
	if code == 0 {
		return absent
	}
	return strconv.Itoa(code)
}

// durationText formats d in milliseconds with one decimal, or absent when nil.
func durationText(d *time.Duration) string {
	if d == nil {
		return absent
	}
	return strconv.FormatFloat(float64(*d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

// tokensText is the token count with its source, or absent when unknown.
func tokensText(n int, from probe.TokenSource) string {
	if from == probe.TokensUnknown {
		return absent
	}
	return fmt.Sprintf("%d (%s)", n, from)
}
