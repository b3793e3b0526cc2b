package exporter

import (
	"bytes"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// absent is shown for a value that does not exist, never 0.
const absent = "—"

// landingTemplate is the landing page: a table of targets, then the recent
// requests of each. html/template escapes every value.
var landingTemplate = template.Must(template.New("landing").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>llmprober</title></head>
<body>
<h1>llmprober</h1>
{{with .Version}}<p>Version {{.}}</p>{{end}}
<p><a href="/metrics">Metrics</a> · <a href="/-/healthy">Health</a> · <a href="/-/ready">Readiness</a></p>
<h2>Targets</h2>
<table border="1">
<tr><th>Target</th><th>Model</th><th>API</th><th>Stream</th><th>Server</th><th>Start-up state</th><th>Scheduled</th><th>Sent</th><th>Dropped</th><th>Successful</th><th>Errored</th><th>Incomplete</th></tr>
{{range .Targets}}<tr><td>{{.Name}}</td><td>{{.Model}}</td><td>{{.API}}</td><td>{{.Stream}}</td><td>{{.Server}}</td><td>{{.State}}</td><td>{{.Scheduled}}</td><td>{{.Sent}}</td><td>{{.Dropped}}</td><td>{{.Successful}}</td><td>{{.Errored}}</td><td>{{.Incomplete}}</td></tr>
{{end}}</table>
{{template "windows" .Windows}}
{{range .Targets}}
<h2>Recent requests: {{.Name}}</h2>
{{if .Recent}}<table border="1">
<tr><th>Time</th><th>Seq</th><th>Outcome</th><th>Error type</th><th>Error code</th><th>Error</th><th>HTTP status</th><th>Latency</th><th>TTFT</th><th>TTFOT</th><th>ITL</th><th>TPOT</th><th>Output tokens</th><th>Usage report</th></tr>
{{range .Recent}}<tr><td>{{.Time}}</td><td>{{.Seq}}</td><td>{{.Outcome}}</td><td>{{.ErrorType}}</td><td>{{.ErrorCode}}</td><td>{{.Error}}</td><td>{{.HTTPStatus}}</td><td>{{.Latency}}</td><td>{{.TTFT}}</td><td>{{.TTFOT}}</td><td>{{.ITL}}</td><td>{{.TPOT}}</td><td>{{.OutputTokens}}</td><td>{{.Usage}}</td></tr>
{{end}}</table>{{else}}<p>No finished requests yet.</p>{{end}}
{{end}}
</body>
</html>
`))

// landingPage is the data of landingTemplate, every value already formatted.
type landingPage struct {
	Version string
	Targets []landingTarget
	Windows *landingWindows
}

// landingTarget is one row of the target table and its recent requests.
type landingTarget struct {
	Name, Model, API, Stream, Server, State string
	Scheduled, Sent                         uint64
	Dropped                                 string
	Successful, Errored, Incomplete         uint64
	Recent                                  []landingProbe
}

// landingProbe is one row of a recent-requests table.
type landingProbe struct {
	Time, Seq, Outcome, ErrorType, ErrorCode, Error, HTTPStatus string
	Latency, TTFT, TTFOT, ITL, TPOT, OutputTokens, Usage        string
}

// landing renders the landing page.
func (s *Server) landing(w http.ResponseWriter, _ *http.Request) {
	page := landingPage{Version: s.opts.Version, Windows: s.opts.Windows.landing()}
	if s.opts.Observer != nil {
		for _, st := range s.opts.Observer.Status() {
			page.Targets = append(page.Targets, newLandingTarget(&st))
		}
	}
	var buf bytes.Buffer
	if err := landingTemplate.Execute(&buf, page); err != nil {
		s.opts.Logger.Error("could not render landing page", "err", err)
		http.Error(w, "could not render page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// newLandingTarget formats one target's status.
func newLandingTarget(st *TargetStatus) landingTarget {
	t := st.Target
	lt := landingTarget{
		Name: t.Name, Model: t.Model, API: t.API, Stream: strconv.FormatBool(t.Stream),
		Server: serverHost(t), State: stateText(st),
		Successful: st.Counts[probe.Successful], Errored: st.Counts[probe.Errored],
		Incomplete: st.Counts[probe.Incomplete],
		Scheduled:  st.Probes.Scheduled, Sent: st.Probes.Sent, Dropped: droppedText(st.Probes),
	}
	for _, p := range st.Recent {
		lt.Recent = append(lt.Recent, newLandingProbe(&p))
	}
	return lt
}

// newLandingProbe formats one recent request.
func newLandingProbe(p *ProbeSummary) landingProbe {
	return landingProbe{
		Time: timeText(p.Time), Seq: strconv.FormatUint(p.Seq, 10), Outcome: string(p.Outcome),
		ErrorType: orAbsent(string(p.ErrorType)), ErrorCode: orAbsent(p.ErrorCode.String()), Error: orAbsent(p.Error),
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
