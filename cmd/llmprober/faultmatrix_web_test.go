package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/exporter/otlptest"
)

// TestFaultMatrixHungOTLPReceiver: an OTLP receiver that accepts and never
// answers, or never accepts, over http/protobuf or grpc, with an export
// timeout of 6 s: the first probe reaches the server and /-/ready turns
// 200 within 4 s of the start (waiting for the start export would take
// 6 s), and the process stops within the flush bound (6 s) and the HTTP
// server's 5 s.
func TestFaultMatrixHungOTLPReceiver(t *testing.T) {
	for _, tc := range []struct {
		name, protocol string
		addr           func(testing.TB) string
	}{
		{"http, accepts and never answers", "http/protobuf", otlptest.Silent},
		{"http, never accepts", "http/protobuf", otlptest.FullBacklog},
		{"grpc, accepts and never answers", "grpc", otlptest.Silent},
		{"grpc, never accepts", "grpc", otlptest.FullBacklog},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startSim(t)
			env := map[string]string{
				"OTEL_METRICS_EXPORTER":               "otlp",
				"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": tc.protocol,
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + tc.addr(t) + "/v1/metrics",
				"OTEL_EXPORTER_OTLP_TIMEOUT":          "6000",
			}
			for k, v := range env { // the OTLP exporter reads the process's environment
				t.Setenv(k, v)
			}
			cfg := "targets:\n  - {name: one, base_url: \"" + s.URL() + "/v1\", model: sim-model, schedule: {rate: 20}}\n"
			r := startRun(t, []string{"run", "--config", writeFile(t, "one.yml", cfg), "--listen-address", "127.0.0.1:0"}, env)
			eventually(t, 4*time.Second, "the first probe and /-/ready 200", func() bool {
				code, _ := r.get(t, "/-/ready")
				return len(s.Requests()) > 0 && code == http.StatusOK
			})
			start := time.Now()
			_ = r.stop()
			if took := time.Since(start); took > 6*time.Second+5*time.Second+2*time.Second {
				t.Errorf("stopping took %v, want at most the flush bound and the server's", took)
			}
		})
	}
}

// send makes a request of r's server with Host host (empty: the address)
// and headers hdr, and returns the status and body.
func (r *running) send(t *testing.T, method, path, host string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, r.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	return resp.StatusCode, readAll(resp)
}

// TestFaultMatrixWebLifecycle: without --web.enable-lifecycle, POST
// /-/reload answers 403 as Prometheus does and reloads nothing (SIGHUP and
// polling still would); with it, a plain POST reloads while a cross-site
// one, a text/plain form and a rebinding Host are refused and reload
// nothing. /config and the API refuse a foreign Host; /metrics serves it.
func TestFaultMatrixWebLifecycle(t *testing.T) {
	s := startSim(t)
	path := writeFile(t, "c.yml", reloadConfig(reloadTarget("one", s.URL(), 5)))
	off := startRun(t, []string{"run", "--config", path, "--listen-address", "127.0.0.1:0"}, nil)
	on := startRun(t, []string{"run", "--config", path, "--listen-address", "127.0.0.1:0", "--web.enable-lifecycle",
		"--web.allowed-hosts", "llmprober.monitoring.svc"}, nil)
	rewrite(t, path, reloadConfig(reloadTarget("one", s.URL(), 5), reloadTarget("two", s.URL(), 5)))
	if code, body := off.send(t, "POST", "/-/reload", "", nil); code != http.StatusForbidden || body != "Lifecycle API is not enabled.\n" {
		t.Errorf("lifecycle off: POST /-/reload = %d %q, want 403 Lifecycle API is not enabled.", code, body)
	}
	for _, tc := range []struct {
		name, method, path, host string
		hdr                      map[string]string
		want                     int
	}{
		{"cross-site fetch", "POST", "/-/reload", "", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"text/plain form", "POST", "/-/reload", "", map[string]string{"Content-Type": "text/plain"}, http.StatusUnsupportedMediaType},
		{"rebinding Host", "POST", "/-/reload", "evil.example", nil, http.StatusMisdirectedRequest},
		{"rebinding Host on /config", "GET", "/config", "evil.example:9477", nil, http.StatusMisdirectedRequest},
		{"rebinding Host on the API", "GET", "/api/v1/targets", "evil.example", nil, http.StatusMisdirectedRequest},
		{"listed name on /config", "GET", "/config", "llmprober.monitoring.svc:9477", nil, http.StatusOK},
		{"Service name on /metrics", "GET", "/metrics", "llmprober.other.svc:9477", nil, http.StatusOK},
		{"curl -X POST, last", "POST", "/-/reload", "", nil, http.StatusOK},
	} {
		if code, body := on.send(t, tc.method, tc.path, tc.host, tc.hdr); code != tc.want {
			t.Errorf("%s: %d %q, want %d", tc.name, code, body, tc.want)
		}
	}
	// The file gained a target: only the last POST to on reloaded it.
	for _, tc := range []struct {
		name string
		r    *running
		want string
	}{{"off", off, "0"}, {"on", on, "1"}} {
		if _, text := tc.r.scrape(t); !strings.Contains(text, `llmprober_config_reloads_total{outcome="success"} `+tc.want+"\n") {
			t.Errorf("%s: want %s successful reload", tc.name, tc.want)
		}
	}
}

func TestWebFlagsValidate(t *testing.T) {
	for _, tc := range []struct {
		name, hosts string
		reload      time.Duration
		want        []string
		wantErr     string
	}{
		{"none", "", 0, nil, ""},
		{"names and spaces", " a.example , b.example:9477,,*", 0, []string{"a.example", "b.example:9477", "*"}, ""},
		{"a URL", "https://a.example/", 0, nil, `--web.allowed-hosts: "https://a.example/" is not a host name`},
		{"negative interval", "", -time.Second, nil, "--config.auto-reload-interval must not be negative, got -1s"},
	} {
		wf := webFlags{allowedHosts: tc.hosts, autoReload: tc.reload}
		got, err := wf.validate()
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
