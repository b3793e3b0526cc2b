package exporter

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Another method than GET or HEAD on an API path answers 405 naming the
// allowed ones; an unknown path stays 404 whatever the method.
func TestWindowAPIMethods(t *testing.T) {
	base, c := apiFixture(t)
	tests := []struct {
		name, method, path string
		code               int
		allow, msg         string
	}{
		{"list by POST", http.MethodPost, "/api/v1/targets", 405, "GET, HEAD", "method POST not allowed on /api/v1/targets"},
		{"window by DELETE", http.MethodDelete, "/api/v1/targets/alpha/windows/1m", 405, "GET, HEAD",
			"method DELETE not allowed on /api/v1/targets/alpha/windows/1m"},
		{"window by PUT", http.MethodPut, "/api/v1/targets/alpha/windows/5m", 405, "GET, HEAD",
			"method PUT not allowed on /api/v1/targets/alpha/windows/5m"},
		{"wrong method before a bad query", http.MethodPost, "/api/v1/targets?records=maybe", 405, "GET, HEAD",
			"method POST not allowed on /api/v1/targets"},
		{"list by GET", http.MethodGet, "/api/v1/targets", 200, "", ""},
		{"window by HEAD", http.MethodHead, "/api/v1/targets/alpha/windows/1m", 200, "", ""},
		{"unknown path by POST", http.MethodPost, "/api/v1/nope", 404, "", "unknown API path /api/v1/nope"},
		{"unknown path by GET", http.MethodGet, "/api/v1/targets/alpha", 404, "", "unknown API path /api/v1/targets/alpha"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body, hdr := get(t, c, tt.method, base+tt.path, nil)
			if code != tt.code || hdr.Get("Allow") != tt.allow {
				t.Errorf("%d with Allow %q, want %d with %q", code, hdr.Get("Allow"), tt.code, tt.allow)
			}
			if tt.msg == "" {
				return
			}
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error != tt.msg {
				t.Errorf("body %q (%v), want error %q", body, err, tt.msg)
			}
		})
	}
}
