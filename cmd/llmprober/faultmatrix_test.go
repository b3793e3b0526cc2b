package main

import (
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe/sim"
)

// matrixCase is one target of the fault matrix and what must become of
// its requests.
type matrixCase struct {
	name string
	// base is the target's base URL; yaml holds its other settings, each
	// line indented as a target's setting.
	base, yaml string
	// outcome and errType are those of every finished request; with
	// waiting the target must stay at its start-up gate, and finish none.
	outcome, errType string
	waiting          bool
}

// TestFaultMatrix probes one target per misbehaving endpoint with one
// daemon, every request carrying a planted API key, and checks that each
// target's requests all end with the outcome and error type of its fault;
// that a redirect is never followed by a probe, a realtime handshake or a
// readiness check; that a 429 is never retried; and that the key appears,
// in no encoding, in any log line, /metrics, API answer or the landing page.
func TestFaultMatrix(t *testing.T) {
	t.Setenv("HOSTILE_KEY", hostileKey)
	cases, tooMany := matrixCases(t)
	var b strings.Builder
	b.WriteString("targets:\n")
	for _, c := range cases {
		fmt.Fprintf(&b, "  - name: %s\n    base_url: %s\n    model: sim-model\n    auth: {api_key_env: HOSTILE_KEY}\n%s", c.name, c.base, c.yaml)
		if !strings.Contains(c.yaml, "readiness:") {
			b.WriteString("    readiness: {path: none}\n")
		}
		if !strings.Contains(c.yaml, "timeout:") {
			// Long enough that no other failure turns into a timeout on a
			// loaded machine.
			b.WriteString("    timeout: 5s\n")
		}
		b.WriteString("    schedule: {rate: 4, max_concurrency: 4}\n")
	}
	r := startRun(t, []string{"run", "--config", writeFile(t, "matrix.yml", b.String()), "--listen-address", "127.0.0.1:0"}, nil)
	eventually(t, 30*time.Second, "2 finished requests per probed target", func() bool {
		fams, _ := r.scrape(t)
		for _, c := range cases {
			if !c.waiting && counter(fams, "llmprober_requests_total", map[string]string{"target": c.name}) < 2 {
				return false
			}
		}
		return true
	})
	fams, _ := r.scrape(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkMatrixCase(t, fams, c) })
	}
	checkNoRetry(t, r, fams, tooMany)
	shown := matrixPages(t, r, cases)
	if err := r.stop(); !isCanceled(err) {
		t.Fatalf("run: %v", err)
	}
	shown["stderr"], shown["stdout"] = r.stderr.String(), r.stdout.String()
	for where, text := range shown {
		if found := leaks(text, hostileKey); len(found) > 0 {
			t.Errorf("the planted key appears in %s as %v", where, found)
		}
	}
	checkMatrixLogs(t, r.stderr.String())
}

// checkMatrixCase checks one target's requests in the scrape fams.
func checkMatrixCase(t *testing.T, fams map[string]*dto.MetricFamily, c matrixCase) {
	t.Helper()
	all := counter(fams, "llmprober_requests_total", map[string]string{"target": c.name})
	if c.waiting {
		state, _ := gauge(fams, "llmprober_target_state", map[string]string{"target": c.name, "state": "waiting"})
		if all != 0 || state != 1 {
			t.Errorf("%v requests, waiting %v; want none, still waiting at the gate", all, state)
		}
		return
	}
	want := map[string]string{"target": c.name, "outcome": c.outcome}
	if c.errType != "" {
		want["error_type"] = c.errType
	}
	if got := counter(fams, "llmprober_requests_total", want); got != all || all == 0 {
		t.Errorf("%v of %v requests are %v; want all; by type: %v", got, all, want, byType(fams, c.name))
	}
}

// byType returns the target's requests by outcome and error type.
func byType(fams map[string]*dto.MetricFamily, target string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range fams["llmprober_requests_total"].GetMetric() {
		if labelsMatch(m, map[string]string{"target": target}) && m.GetCounter().GetValue() > 0 {
			var k []string
			for _, l := range m.GetLabel() {
				k = append(k, l.GetName()+"="+l.GetValue())
			}
			out[strings.Join(k, ",")] = m.GetCounter().GetValue()
		}
	}
	return out
}

// matrixPages fetches everything the HTTP server shows: the overview,
// every target's page, /metrics, and every API document (with and without
// records, each target's recent requests and history).
func matrixPages(t *testing.T, r *running, cases []matrixCase) map[string]string {
	t.Helper()
	paths := []string{"/", "/metrics", "/api/v1/targets", "/api/v1/targets?records=true", "/-/ready"}
	// The list with records holds every window; each target's 1m window
	// document adds the summaries of every outcome.
	for _, c := range cases {
		paths = append(paths, "/api/v1/targets/"+c.name+"/windows/1m?records=true", "/targets/"+c.name,
			"/api/v1/targets/"+c.name+"/recent", "/api/v1/targets/"+c.name+"/history")
	}
	shown := map[string]string{}
	for _, p := range paths {
		code, body := r.get(t, p)
		if code != http.StatusOK && p != "/-/ready" {
			t.Errorf("GET %s: %d", p, code)
		}
		shown[p] = body
	}
	return shown
}

// checkMatrixLogs checks the log lines: each is bounded, and the readiness
// failures say what they should, redacted.
func checkMatrixLogs(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if len(line) > 2000 {
			t.Errorf("a log line of %d bytes: %.200s…", len(line), line)
		}
	}
	for _, want := range []string{
		`target not ready yet" target=ready-reflect error="readiness check answered HTTP 503 key REDACTED"`,
		`target not ready yet" target=ready-huge error="could not check readiness: Get`,
		"server response headers exceeded 65536 bytes",
		`target not ready yet" target=ready-redirect error="readiness check answered HTTP 302 Found, a redirect, which is not followed`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("logs lack %q:\n%s", want, stderr)
		}
	}
}

// checkNoRetry checks that the 429 server got each probe once: no more
// requests than llmprober had finished or had in flight just after.
func checkNoRetry(t *testing.T, r *running, before map[string]*dto.MetricFamily, c *counted) {
	t.Helper()
	n := c.n.Load()
	after, _ := r.scrape(t)
	sel := map[string]string{"target": "http429"}
	finished := counter(before, "llmprober_requests_total", sel)
	inFlight, _ := gauge(after, "llmprober_requests_in_flight", sel)
	sent := counter(after, "llmprober_requests_total", sel) + inFlight
	if float64(n) < finished || float64(n) > sent {
		t.Errorf("the 429 server got %d requests; want between %v finished and %v sent: never a retry", n, finished, sent)
	}
}

// matrixCases starts the servers of the fault matrix and returns its
// targets and the 429 server.
func matrixCases(t *testing.T) ([]matrixCase, *counted) {
	t.Helper()
	s := startSim(t)
	simFault := func(name, fault, outcome, errType string) matrixCase {
		return matrixCase{name: name, base: s.URL() + "/v1", yaml: "    headers: {X-Sim-Fault: " + fault + "}\n", outcome: outcome, errType: errType}
	}
	elsewhere := &counted{h: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}
	elsewhereURL := serve(t, elsewhere).URL
	t.Cleanup(func() {
		if n := elsewhere.n.Load(); n != 0 {
			t.Errorf("the target of the redirects got %d requests; want none", n)
		}
	})
	redirect := serve(t, http.RedirectHandler(elsewhereURL+"/v1/chat/completions", http.StatusFound)).URL
	tooMany := &counted{h: statusHandler(429, map[string]string{"Retry-After": "1"},
		func(*http.Request) string { return `{"error":"slow down"}` })}
	tls := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tls.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes fail on purpose
	tls.StartTLS()
	t.Cleanup(tls.Close)
	cases := []matrixCase{
		simFault("healthy", "none", "successful", ""),
		simFault("http500", string(sim.FaultHTTP500), "errored", "http_5xx"),
		{name: "stall-after-first-token", base: s.URL() + "/v1", yaml: "    headers: {X-Sim-Fault: stall}\n    timeout: 300ms\n",
			outcome: "errored", errType: "timeout"},
		simFault("reset", string(sim.FaultReset), "errored", "connection"),
		simFault("malformed", string(sim.FaultMalformed), "errored", "protocol"),
		simFault("truncated", string(sim.FaultTruncated), "errored", "protocol"),
		simFault("html200", string(sim.FaultHTML), "errored", "protocol"),
		simFault("error-event", string(sim.FaultErrorEvent), "errored", "stream_error"),
		{name: "http429", base: serve(t, tooMany).URL + "/v1", outcome: "errored", errType: "http_429"},
		{name: "http401", base: serve(t, statusHandler(401, nil, func(*http.Request) string { return `{"error":"no"}` })).URL + "/v1",
			outcome: "errored", errType: "http_4xx"},
		{name: "refused", base: "http://" + closedPort(t) + "/v1", outcome: "errored", errType: "connection"},
		{name: "unresolvable", base: "http://unresolvable..invalid/v1", outcome: "errored", errType: "connection"},
		{name: "self-signed", base: tls.URL + "/v1", outcome: "errored", errType: "connection"},
		{name: "stall-before-first-token", base: serve(t, stallAfterHeaders()).URL + "/v1", yaml: "    timeout: 300ms\n",
			outcome: "errored", errType: "timeout"},
		{name: "redirect", base: redirect + "/v1", outcome: "errored", errType: "protocol"},
		{name: "realtime-redirect", base: redirect + "/v1", yaml: realtimeYAML, outcome: "errored", errType: "protocol"},
		{name: "realtime-reflect", base: serve(t, reflecting()["reflect-json"]).URL + "/v1", yaml: realtimeYAML,
			outcome: "errored", errType: "http_5xx"},
		{name: "ready-redirect", base: redirect + "/v1", yaml: "    readiness: {path: /health, interval: 50ms}\n", waiting: true},
		{name: "ready-reflect", base: rawHTTP(t, "HTTP/1.1 503 key "+hostileKey+"\r\nContent-Length: 0\r\n\r\n") + "/v1",
			yaml: "    readiness: {path: /health, interval: 50ms}\n", waiting: true},
		{name: "ready-huge", base: rawHTTP(t, "HTTP/1.1 503 "+strings.Repeat("x", 500<<10)+"\r\nContent-Length: 0\r\n\r\n") + "/v1",
			yaml: "    readiness: {path: /health, interval: 50ms}\n", waiting: true},
	}
	for _, name := range slices.Sorted(maps.Keys(reflecting())) {
		h := reflecting()[name]
		want := map[string]string{"reflect-json": "http_5xx", "reflect-query": "http_4xx", "reflect-path": "http_4xx",
			"reflect-basic": "http_4xx", "reflect-basic-url": "http_4xx", "reflect-b64": "http_4xx", "reflect-b64-1": "http_4xx",
			"reflect-escaped": "http_4xx", "reflect-json-text": "http_5xx",
			"reflect-stream": "stream_error"}[name]
		if strings.HasPrefix(name, "reflect-at-") {
			want = "http_5xx"
		}
		cases = append(cases, matrixCase{name: name, base: serve(t, h).URL + "/v1", outcome: "errored", errType: want})
	}
	cases = append(cases, byteCases(t)...)
	return cases, tooMany
}

// realtimeYAML makes a target a realtime one with short audio.
const realtimeYAML = "    backend: openai_websocket\n    timeout: 5s\n    realtime: {audio_duration: 200ms, chunk_duration: 100ms}\n"

// stallAfterHeaders starts a 200 event stream and then sends nothing.
func stallAfterHeaders() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// Clients that never read their records, and idle connections, take
// nothing from the probes: none is dropped, they go on succeeding, and
// /metrics, the landing page and the API still answer.
func TestFaultMatrixSlowClients(t *testing.T) {
	s := startSim(t)
	cfg := writeFile(t, "c.yml", fmt.Sprintf("targets:\n  - name: a\n    base_url: %s/v1\n    model: sim-model\n"+
		"    readiness: {path: none}\n    schedule: {rate: 20, max_concurrency: 4, max_queue: 100}\n", s.URL()))
	r := startRun(t, []string{"run", "--config", cfg, "--listen-address", "127.0.0.1:0"}, nil)
	eventually(t, 20*time.Second, "50 requests", func() bool {
		fams, _ := r.scrape(t)
		return counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"}) >= 50
	})
	addr := strings.TrimPrefix(r.base, "http://")
	var conns []net.Conn
	for i := range 80 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if i < 30 {
			_ = c.(*net.TCPConn).SetReadBuffer(4096)
			_, _ = io.WriteString(c, "GET /api/v1/targets?records=true HTTP/1.1\r\nHost: localhost\r\n\r\n")
		}
	}
	fams, _ := r.scrape(t)
	before := counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"})
	droppedBefore := counter(fams, "llmprober_probes_dropped_total", nil)
	time.Sleep(2 * time.Second)
	for _, p := range []string{"/", "/metrics", "/api/v1/targets", "/-/healthy"} {
		if code, _ := r.get(t, p); code != http.StatusOK {
			t.Errorf("GET %s with 80 idle and stalled clients: %d", p, code)
		}
	}
	fams, _ = r.scrape(t)
	// 40 are due in 2 s; the queue of 100 absorbs a loaded machine's pauses.
	if got := counter(fams, "llmprober_requests_total", map[string]string{"outcome": "successful"}); got < before+20 {
		t.Errorf("%v successful requests in 2 s beside the clients; want at least 20", got-before)
	}
	if dropped := counter(fams, "llmprober_probes_dropped_total", nil) - droppedBefore; dropped != 0 {
		t.Errorf("%v probes dropped beside the clients", dropped)
	}
	for _, c := range conns {
		_ = c.Close()
	}
}
