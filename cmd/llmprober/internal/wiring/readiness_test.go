package wiring

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/testsupport"
	"github.com/llmprober/llmprober/config"
)

// plantedKey is the API key the hostile tests plant and then search for.
const plantedKey = "sk-PLANTED0123456789abcdefKEY"

// seen records the requests a server received.
type seen struct {
	mu   sync.Mutex
	reqs []http.Header
}

func (s *seen) add(h http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, h.Clone())
}

func (s *seen) all() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.reqs...)
}

// recording starts a server answering 200 that records each request's headers.
func recording(t *testing.T, tlsOn bool) (*httptest.Server, *seen) {
	t.Helper()
	s := &seen{}
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { s.add(r.Header) })
	srv := httptest.NewUnstartedServer(h)
	if tlsOn {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, s
}

// redirecting starts a server that answers every request with a 302 to
// location and records the headers it received.
func redirecting(t *testing.T, tlsOn bool, location func(self string) string) (*httptest.Server, *seen) {
	t.Helper()
	s := &seen{}
	var srv *httptest.Server
	srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r.Header)
		if r.URL.Path == "/health" {
			return // the redirect's own origin answers ready
		}
		http.Redirect(w, r, location(srv.URL), http.StatusFound)
	}))
	if tlsOn {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, s
}

// gateTarget returns a defaulted target of base with the planted key in
// header authHeader, an extra header X-Team, and the given redirect setting.
func gateTarget(t *testing.T, base, authHeader string, follow bool) *config.Target {
	t.Helper()
	t.Setenv("HOSTILE_KEY", plantedKey)
	c := &config.Config{Targets: []config.Target{{
		Name: "t", BaseURL: base + "/v1", Model: "m", Headers: map[string]string{"X-Team": "blue"},
		Auth:      config.Auth{APIKeyEnv: "HOSTILE_KEY", Header: authHeader},
		TLS:       config.TLS{InsecureSkipVerify: true},
		Readiness: config.Readiness{Path: "/start", FollowRedirects: follow},
	}}}
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return &c.Targets[0]
}

// checkGate runs one readiness check of target and returns its error.
func checkGate(t *testing.T, tg *config.Target) error {
	t.Helper()
	client, err := newClient(tg)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	header, secrets, err := requestHeader(tg)
	if err != nil {
		t.Fatal(err)
	}
	var logged []error
	gate := newGate(tg, client, header, secrets, func(err error) { logged = append(logged, err) })
	err = gate.Check(context.Background())
	if err != nil && (len(logged) != 1 || logged[0].Error() != err.Error()) {
		t.Errorf("onFail got %v; want the check's error %v", logged, err)
	}
	return err
}

// hasCredential reports whether h carries the planted key in any header.
func hasCredential(h http.Header) bool {
	for _, vs := range h {
		for _, v := range vs {
			if strings.Contains(v, plantedKey) {
				return true
			}
		}
	}
	return false
}

// Without readiness.follow_redirects a redirect is never followed and
// never passes the gate, whatever its target.
func TestReadinessRedirectNotFollowed(t *testing.T) {
	other, otherSeen := recording(t, false)
	for _, tlsOn := range []bool{false, true} {
		start, startSeen := redirecting(t, tlsOn, func(string) string { return other.URL + "/health" })
		err := checkGate(t, gateTarget(t, start.URL, "Authorization", false))
		if err == nil || !strings.Contains(err.Error(), "HTTP 302 Found, a redirect, which is not followed") {
			t.Errorf("tls %v: check error %v; want a redirect not followed", tlsOn, err)
		}
		if n := len(startSeen.all()); n != 1 {
			t.Errorf("tls %v: %d requests to the start; want 1", tlsOn, n)
		}
	}
	if n := len(otherSeen.all()); n != 0 {
		t.Errorf("the redirect's target got %d requests; want 0", n)
	}
}

// With readiness.follow_redirects the check follows, and credentials go
// along only to the same origin: never to another server, never from
// https to http, whether in Authorization or a custom auth.header.
func TestReadinessRedirectStripsCredentials(t *testing.T) {
	plain, plainSeen := recording(t, false)
	for _, tc := range []struct {
		name       string
		tlsStart   bool
		authHeader string
		location   func(self string) string
		// sameOrigin: the redirect stays on the start server, which then
		// receives the key twice; otherwise the plain server gets it never.
		sameOrigin bool
	}{
		{"same origin keeps Authorization", false, "Authorization", func(self string) string { return self + "/health" }, true},
		{"same origin keeps a custom header", false, "X-Goog-Api-Key", func(self string) string { return self + "/health" }, true},
		{"other server: Authorization dropped", false, "Authorization", func(string) string { return plain.URL + "/health" }, false},
		{"other server: custom header dropped", false, "X-Team-Credential", func(string) string { return plain.URL + "/health" }, false},
		{"https to http: Authorization dropped", true, "Authorization", func(string) string { return plain.URL + "/health" }, false},
		{"https to http: custom header dropped", true, "Ocp-Apim-Subscription-Key", func(string) string { return plain.URL + "/health" }, false},
		{"https to http on the same host name", true, "Authorization",
			func(string) string { return strings.Replace(plain.URL, "127.0.0.1", "localhost", 1) + "/health" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(plainSeen.all())
			start, startSeen := redirecting(t, tc.tlsStart, tc.location)
			if err := checkGate(t, gateTarget(t, start.URL, tc.authHeader, true)); err != nil {
				t.Fatalf("check: %v", err)
			}
			got := startSeen.all()
			if !hasCredential(got[0]) {
				t.Errorf("the start got no key: %v", got[0])
			}
			if tc.sameOrigin {
				if len(got) != 2 || !hasCredential(got[1]) {
					t.Errorf("same origin: %d requests, second %v; want 2, the key in both", len(got), got)
				}
				return
			}
			after := plainSeen.all()[before:]
			if len(after) != 1 || hasCredential(after[0]) || after[0].Get("X-Team") != "blue" {
				t.Errorf("the other origin got %v; want one request with X-Team and without the key", after)
			}
		})
	}
}

// A redirect loop stops after 10 redirects and fails the check.
func TestReadinessRedirectLoop(t *testing.T) {
	start, seenStart := redirecting(t, false, func(self string) string { return self + "/again" })
	err := checkGate(t, gateTarget(t, start.URL, "Authorization", true))
	if err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") || len(seenStart.all()) != 11 {
		t.Errorf("error %v after %d requests; want stopped after 10 redirects, 11 requests", err, len(seenStart.all()))
	}
}

// rawHTTP serves every connection on a loopback listener with answer.
var rawHTTP = testsupport.RawHTTP

// The server's status line goes into the check's error redacted of the
// key and bounded, and a huge one is refused whole.
func TestReadinessErrorRedactedAndBounded(t *testing.T) {
	for _, tc := range []struct {
		name, answer, want string
	}{
		{"key in the reason phrase", "HTTP/1.1 503 bad key " + plantedKey + " here\r\nContent-Length: 0\r\n\r\n",
			"readiness check answered HTTP 503 bad key REDACTED here"},
		{"500 KB reason phrase", "HTTP/1.1 503 " + strings.Repeat("x", 500<<10) + "\r\nContent-Length: 0\r\n\r\n",
			"server response headers exceeded 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkGate(t, gateTarget(t, rawHTTP(t, tc.answer), "Authorization", false))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), plantedKey) ||
				len([]rune(err.Error())) > 200 {
				t.Errorf("error %.300q; want one containing %q, without the key, at most 200 characters", err, tc.want)
			}
		})
	}
}

// The policy on its own: a downgrade to http on the very host and port
// (impossible to serve here) loses the credentials too.
func TestRedirectPolicyOrigins(t *testing.T) {
	policy := redirectPolicy(true, "X-Custom")
	for _, tc := range []struct {
		from, to string
		kept     bool
	}{
		{"https://h.example/a", "https://h.example:443/b", true},
		{"https://H.example/a", "https://h.EXAMPLE/b", true},
		{"http://h.example/a", "http://h.example:80/b", true},
		{"https://h.example/a", "http://h.example:443/b", false},
		{"https://h.example/a", "http://h.example/b", false},
		{"http://h.example/a", "https://h.example/b", false},
		{"https://h.example/a", "https://h.example:8443/b", false},
		{"https://h.example/a", "https://sub.h.example/b", false},
	} {
		first := httptest.NewRequest("GET", tc.from, nil)
		next := httptest.NewRequest("GET", tc.to, nil)
		next.Header.Set("Authorization", "Bearer k")
		next.Header.Set("X-Custom", "k")
		next.Header.Set("Cookie", "k")
		next.Header.Set("X-Team", "blue")
		next.Header.Set("Referer", tc.from)
		if err := policy(next, []*http.Request{first}); err != nil {
			t.Fatal(err)
		}
		kept := next.Header.Get("Authorization") != "" && next.Header.Get("X-Custom") != "" && next.Header.Get("Cookie") != "" &&
			next.Header.Get("Referer") != ""
		gone := next.Header.Get("Authorization") == "" && next.Header.Get("X-Custom") == "" && next.Header.Get("Cookie") == "" &&
			next.Header.Get("Referer") == ""
		if (tc.kept && !kept) || (!tc.kept && !gone) || next.Header.Get("X-Team") != "blue" {
			t.Errorf("%s → %s: headers %v; want credentials and Referer kept %v and X-Team kept", tc.from, tc.to, next.Header, tc.kept)
		}
	}
	if err := redirectPolicy(false, "")(httptest.NewRequest("GET", "http://h/", nil), nil); !errors.Is(err, http.ErrUseLastResponse) {
		t.Errorf("not following: %v; want http.ErrUseLastResponse", err)
	}
}
