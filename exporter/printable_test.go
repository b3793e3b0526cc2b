package exporter

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo/window"
)

// TestServerTextEscaped: a server's error text and code holding bidi
// overrides, isolates, zero-width characters and control characters, and
// a model name holding a zero-width space, reach the target page and
// /recent as visible escapes (as the log writes them), never as the
// characters themselves; the overview holds none of them either.
func TestServerTextEscaped(t *testing.T) {
	target := alpha
	target.Model = "llama\u200b-3"
	m, o := newTestMetrics(t, target)
	rec := alphaErr()
	rec.Error = "denied: see file\u202egnp.exe \u2066x\u2069\u200b\ufeff\x1b[2J"
	rec.ErrorCode = probe.ErrorCode{Text: "E\u202e42", Kind: probe.CodeString}
	o.Finished(rec)
	st := newWindowStore(t, fakeAt(t0), "alpha", window.Settings{})
	w := newTestWindows(t, m, o, st)
	s := NewServer(ServerOptions{Metrics: m, Observer: o, Windows: w})
	w.Register(s)
	base, c := startServer(t, s)

	wantError := `denied: see file\u202egnp.exe \u2066x\u2069\u200b\ufeff\x1b[2J`
	_, page, _ := get(t, c, http.MethodGet, base+"/targets/alpha", nil)
	_, overview, _ := get(t, c, http.MethodGet, base+"/", nil)
	for name, body := range map[string]string{"target page": page, "overview": overview} {
		if strings.ContainsAny(body, "\u202e\u2066\u2069\u200b\ufeff\x1b") {
			t.Errorf("%s holds a format or control character", name)
		}
	}
	text := html.UnescapeString(page)
	for _, want := range []string{wantError, `"E\u202e42"`, `llama\u200b-3`} {
		if !strings.Contains(text, want) {
			t.Errorf("the target page lacks %s", want)
		}
	}
	var r struct {
		Recent []struct {
			Error     string `json:"error"`
			ErrorCode string `json:"error_code"`
		} `json:"recent"`
	}
	getJSON(t, c, base+"/api/v1/targets/alpha/recent", &r)
	if len(r.Recent) != 1 || r.Recent[0].Error != wantError || r.Recent[0].ErrorCode != `E\u202e42` {
		t.Errorf("/recent = %+v; want error %s and code E\\u202e42", r.Recent, wantError)
	}
}
