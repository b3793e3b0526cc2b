package exporter

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/llmprober/llmprober/probe"
)

// startServer serves s on 127.0.0.1 and returns its base URL and a client;
// cleanup shuts it down and checks that Serve returned nil.
func startServer(t *testing.T, s *Server) (string, *http.Client) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve returned %v; want nil after Shutdown", err)
		}
	})
	return "http://" + l.Addr().String(), client
}

// get fetches url and returns the status, body and response headers.
func get(t *testing.T, c *http.Client, method, url string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatalf("request: %v", err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, string(body), resp.Header
}

func TestServerRoutes(t *testing.T) {
	m, o := newTestMetrics(t, alpha, beta)
	feedFixtures(o) // alpha ready and probed; beta failed but probed
	base, client := startServer(t, NewServer(ServerOptions{Metrics: m, Observer: o, Version: "1.2.3"}))
	for _, tc := range []struct {
		name, method, path string
		hdr                map[string]string
		status             int
		body               string // exact body, unless contains is set
		contains           []string
	}{
		{"healthy", "GET", "/-/healthy", nil, 200, "Healthy\n", nil},
		{"not ready names the target", "GET", "/-/ready", nil, 503, "Not ready: beta\n", nil},
		{"landing", "GET", "/", nil, 200, "", []string{"<h1>llmprober</h1>", "Version 1.2.3", `href="/metrics"`,
			`href="/-/healthy"`, `href="/-/ready"`}},
		{"metrics text", "GET", "/metrics", nil, 200, "", []string{
			"# TYPE llmprober_requests_total counter",
			`llmprober_requests_total{outcome="successful",target="alpha"} 1`, "llmprober_build_info{", "go_goroutines "}},
		{"metrics OpenMetrics", "GET", "/metrics", map[string]string{"Accept": "application/openmetrics-text"}, 200, "",
			[]string{"# TYPE llmprober_requests counter", `llmprober_requests_total{outcome="successful",target="alpha"} 1.0`, "# EOF\n"}},
		{"unknown path", "GET", "/nope", nil, 404, "", nil},
		{"wrong method", "POST", "/-/healthy", nil, 405, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body, _ := get(t, client, tc.method, base+tc.path, tc.hdr)
			if status != tc.status {
				t.Errorf("status %d; want %d (body %q)", status, tc.status, body)
			}
			if tc.body != "" && body != tc.body {
				t.Errorf("body %q; want %q", body, tc.body)
			}
			for _, c := range tc.contains {
				if !strings.Contains(body, c) {
					t.Errorf("body lacks %q", c)
				}
			}
		})
	}
	o.State("beta", probe.StateReady, 0)
	if status, body, _ := get(t, client, "GET", base+"/-/ready", nil); status != 200 || body != "Ready\n" {
		t.Errorf("after beta ready: %d %q; want 200 \"Ready\\n\"", status, body)
	}
}

// rowWith returns the table row of body containing s.
func rowWith(t *testing.T, body, s string) string {
	t.Helper()
	for _, row := range regexp.MustCompile(`<tr>.*?</tr>`).FindAllString(body, -1) {
		if strings.Contains(row, s) {
			return row
		}
	}
	t.Fatalf("no row contains %q", s)
	return ""
}

// cells returns the contents of a row's <td> cells.
func cells(row string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<td>(.*?)</td>`).FindAllStringSubmatch(row, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestLandingPage(t *testing.T) {
	gamma := Target{Name: "gamma", Model: "m", API: "chat"}
	_, o := newTestMetrics(t, alpha, beta, gamma)
	feedFixtures(o)
	s := NewServer(ServerOptions{Observer: o})
	base, client := startServer(t, s)
	status, body, hdr := get(t, client, "GET", base+"/", nil)
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d, content type %q", status, hdr.Get("Content-Type"))
	}
	for _, tc := range []struct {
		name, row string
		want      []string
	}{
		// name, model, api, stream, server, state, scheduled, sent, dropped,
		// successful, errored, incomplete: alpha had 5 due, 4 sent, 1 of the
		// 5 (20%) dropped for a full queue; beta 2 dropped at shutdown and
		// none scheduled (its request came from the fixture alone).
		{"alpha summary", "<td>llama-3-8b</td>",
			[]string{"alpha", "llama-3-8b", "chat", "true", "10.0.0.1:8000", "ready", "5", "4", "1 (20.0%; queue_full 1)", "1", "1", "1"}},
		{"beta summary", "<td>gpt2</td>",
			[]string{"beta", "gpt2", "completions", "false", "llm.example:443", "failed (30.0 s)", "0", "1", "2 (shutdown 2)", "1", "0", "0"}},
		{"gamma without server", "<td>gamma</td>",
			[]string{"gamma", "m", "chat", "false", "—", "waiting (0.0 s)", "0", "0", "0", "0", "0", "0"}},
		// time, seq, outcome, error type, error code, error, status, latency, TTFT, TTFOT, ITL, TPOT,
		// tokens, usage report: alphaOK latency 330 ms, TTFT 250, TTFOT 270, ITL 20, TPOT 77.5.
		{"successful request", "<td>successful</td><td>—</td><td>—</td><td>—</td><td>200</td><td>330.0",
			[]string{"2025-01-02 03:04:05.340Z", "0", "successful", "—", "—", "—", "200",
				"330.0 ms", "250.0 ms", "270.0 ms", "20.0 ms", "77.5 ms", "4 (usage)", "—"}},
		{"errored request: latency, absent values are dashes, error and code escaped", "<td>http_5xx</td>",
			[]string{"2025-01-02 03:04:06.060Z", "1", "errored", "http_5xx", "&#34;&lt;i&gt;503&lt;/i&gt;&#34;",
				"upstream said &lt;b&gt;boom&lt;/b&gt; &amp; &#34;more&#34;", "500", "60.0 ms", "—", "—", "—", "—", "—", "—"}},
		{"cancelled request without response", "<td>canceled</td>",
			[]string{"2025-01-02 03:04:07.300Z", "2", "incomplete", "canceled", "—", "context canceled", "—",
				"—", "—", "—", "—", "—", "—", "—"}},
		{"non-streamed request with an inconsistent usage report", "<td>16 (usage)</td>",
			[]string{"2025-01-02 03:04:10.500Z", "0", "successful", "—", "—", "—", "200",
				"500.0 ms", "—", "—", "—", "31.2 ms", "16 (usage)", "inconsistent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cells(rowWith(t, body, tc.row))
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("cells\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	if strings.Contains(body, "<b>boom") {
		t.Error("error text not escaped")
	}
	if !strings.Contains(body, "Recent requests: gamma</h2>\n<p>No finished requests yet.</p>") {
		t.Error("gamma's empty history not shown")
	}
}

func TestServeWithWebConfig(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatalf("bcrypt: %v", err)
	}
	path := filepath.Join(t.TempDir(), "web.yml")
	cfg := "basic_auth_users:\n  admin: " + string(hash) + "\nhttp_server_config:\n  headers:\n    X-Frame-Options: deny\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatalf("write web config: %v", err)
	}
	base, client := startServer(t, NewServer(ServerOptions{WebConfigFile: path}))
	for _, tc := range []struct {
		name       string
		user, pass string
		status     int
	}{
		{"no credentials", "", "", http.StatusUnauthorized},
		{"wrong password", "admin", "nope", http.StatusUnauthorized},
		{"right password", "admin", "s3cret", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", base+"/-/healthy", nil)
			if err != nil {
				t.Fatalf("request: %v", err)
			}
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("GET: %v", err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("X-Frame-Options") != "deny" {
				t.Errorf("status %d, X-Frame-Options %q; want %d, deny", resp.StatusCode, resp.Header.Get("X-Frame-Options"), tc.status)
			}
		})
	}
}

func TestServerShutdownWithoutServe(t *testing.T) {
	s := NewServer(ServerOptions{})
	for i := range 2 {
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown #%d: %v", i+1, err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer func() { _ = l.Close() }()
	if err := s.Serve(l); err != nil {
		t.Errorf("Serve after Shutdown = %v; want nil", err)
	}
}

func TestServerHandle(t *testing.T) {
	s := NewServer(ServerOptions{})
	s.Handle("GET /api/v1/ping", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "pong")
	}))
	base, client := startServer(t, s)
	if status, body, _ := get(t, client, "GET", base+"/api/v1/ping", nil); status != 200 || body != "pong" {
		t.Errorf("added route: %d %q; want 200 pong", status, body)
	}
	if status, body, _ := get(t, client, "GET", base+"/-/ready", nil); status != 200 || body != "Ready\n" {
		t.Errorf("ready without targets: %d %q; want 200 Ready", status, body)
	}
	if status, _, _ := get(t, client, "GET", base+"/metrics", nil); status != 404 {
		t.Errorf("/metrics without Metrics: %d; want 404", status)
	}
}
