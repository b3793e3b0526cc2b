package exporter

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// guardedServer serves a Server with routes standing for /config, the API
// and POST /-/reload (which counts its calls) on 127.0.0.1.
func guardedServer(t *testing.T, allowed ...string) (string, *http.Client, *atomic.Int32) {
	t.Helper()
	s := NewServer(ServerOptions{AllowedHosts: allowed})
	var reloads atomic.Int32
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	s.Handle("GET /config", ok)
	s.Handle("GET /api/v1/targets", ok)
	s.Handle("POST /-/reload", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reloads.Add(1) }))
	base, c := startServer(t, s)
	return base, c, &reloads
}

// request sends method to base+path with Host host (empty: the URL's) and
// the headers hdr, and returns the status and the response headers.
func request(t *testing.T, c *http.Client, method, base, path, host string, hdr map[string]string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// TestCrossSiteReloadRefused: POST /-/reload as a page of another site can
// send it (fetch in no-cors mode, a form posted as text/plain or
// urlencoded, with or without Origin, as old browsers) is refused before
// the handler runs; curl's and a same-origin page's requests pass.
func TestCrossSiteReloadRefused(t *testing.T) {
	base, c, reloads := guardedServer(t)
	self := "http://" + strings.TrimPrefix(base, "http://")
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"fetch no-cors from another site", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}, http.StatusForbidden},
		{"text/plain form from another site", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain"}, http.StatusForbidden},
		{"same-site page (another port)", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"foreign Origin without Sec-Fetch-Site", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"opaque Origin (sandboxed page)", map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"text/plain form without Origin", map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, http.StatusUnsupportedMediaType},
		{"urlencoded form without Origin", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"multipart form without Origin", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, http.StatusUnsupportedMediaType},
		{"curl -X POST", nil, http.StatusOK},
		{"JSON body", map[string]string{"Content-Type": "application/json"}, http.StatusOK},
		{"same-origin page", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": self}, http.StatusOK},
		{"Origin of this server without Sec-Fetch-Site", map[string]string{"Origin": self}, http.StatusOK},
		{"user-initiated (none)", map[string]string{"Sec-Fetch-Site": "none"}, http.StatusOK},
	} {
		before := reloads.Load()
		code, _ := request(t, c, http.MethodPost, base, "/-/reload", "", tc.hdr)
		called := reloads.Load() - before
		if code != tc.want || (called == 1) != (tc.want == http.StatusOK) {
			t.Errorf("%s: %d, handler called %d times; want %d", tc.name, code, called, tc.want)
		}
	}
}

// TestHostChecked: a Host that names another site (a DNS rebinding) gets
// 421 on the pages, the API, /config, the assets and POST /-/reload, never
// on /metrics, /-/healthy and /-/ready (Prometheus and Kubernetes use
// Service names); IP literals, localhost, the listed names and "*" pass.
func TestHostChecked(t *testing.T) {
	base, c, reloads := guardedServer(t, "llmprober.monitoring.svc:9477", "Status.Example.")
	_, port, _ := strings.Cut(strings.TrimPrefix(base, "http://"), ":")
	for _, tc := range []struct {
		method, path, host string
		want               int
	}{
		{"GET", "/", "evil.example:" + port, http.StatusMisdirectedRequest},
		{"GET", "/config", "evil.example:" + port, http.StatusMisdirectedRequest},
		{"GET", "/api/v1/targets", "evil.example", http.StatusMisdirectedRequest},
		{"GET", "/static/app.js", "evil.example", http.StatusMisdirectedRequest},
		{"POST", "/-/reload", "evil.example:" + port, http.StatusMisdirectedRequest},
		{"GET", "/config", "127.0.0.1.evil.example", http.StatusMisdirectedRequest},
		{"GET", "/-/healthy", "evil.example", http.StatusOK},
		{"GET", "/-/ready", "llmprober.other.svc:9477", http.StatusOK},
		{"GET", "/config", "localhost:" + port, http.StatusOK},
		{"GET", "/config", "grafana.localhost", http.StatusOK},
		{"GET", "/config", "[::1]:" + port, http.StatusOK},
		{"GET", "/api/v1/targets", "10.1.2.3:9477", http.StatusOK},
		{"GET", "/api/v1/targets", "llmprober.monitoring.svc:9477", http.StatusOK},
		{"GET", "/", "llmprober.monitoring.svc", http.StatusOK},
		{"GET", "/config", "status.example", http.StatusOK},
		{"GET", "/config", machineName(), http.StatusOK},
	} {
		code, _ := request(t, c, tc.method, base, tc.path, tc.host, nil)
		if code != tc.want {
			t.Errorf("%s %s, Host %q: %d, want %d", tc.method, tc.path, tc.host, code, tc.want)
		}
	}
	if n := reloads.Load(); n != 0 {
		t.Errorf("the reload ran %d times behind a foreign Host", n)
	}
	anyBase, anyClient, _ := guardedServer(t, "*")
	if code, _ := request(t, anyClient, "GET", anyBase, "/config", "evil.example", nil); code != http.StatusOK {
		t.Errorf("with *: %d, want 200", code)
	}
}

// TestSecurityHeaders: every response, pages, API, /config, /metrics,
// assets, errors and refusals alike, carries nosniff, X-Frame-Options DENY
// and the same-origin Content-Security-Policy.
func TestSecurityHeaders(t *testing.T) {
	m, _ := newTestMetrics(t)
	s := NewServer(ServerOptions{Metrics: m})
	s.Handle("GET /config", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	base, c := startServer(t, s)
	want := map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
	}
	for _, tc := range []struct{ method, path, host string }{
		{"GET", "/", ""}, {"GET", "/targets/none", ""}, {"GET", "/config", ""}, {"GET", "/metrics", ""},
		{"GET", "/static/style.css", ""}, {"GET", "/-/ready", ""}, {"GET", "/nowhere", ""},
		{"GET", "/", "evil.example"}, {"POST", "/config", ""},
	} {
		_, hdr := request(t, c, tc.method, base, tc.path, tc.host, nil)
		for k, v := range want {
			if got := hdr.Get(k); got != v {
				t.Errorf("%s %s (Host %q): %s = %q, want %q", tc.method, tc.path, tc.host, k, got, v)
			}
		}
	}
}

func TestHostPolicy(t *testing.T) {
	p := newHostPolicy("Prober-7", []string{"a.example:80", " b.example. "})
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"", true}, {"127.0.0.1", true}, {"192.168.1.9:9477", true}, {"[::1]:9477", true}, {"[fe80::1]", true},
		{"localhost", true}, {"LOCALHOST:1", true}, {"x.localhost:1", true}, {"prober-7:9477", true},
		{"a.example:9999", true}, {"b.example", true}, {"b.example.:1", true},
		{"c.example", false}, {"localhost.example", false}, {"prober-7.evil.example", false}, {"127.0.0.1.nip.io", false},
	} {
		if got := p.allows(tc.host); got != tc.want {
			t.Errorf("allows(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}
