package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// uPlotBanner is the one URL in what is served: the vendored library's
// first line, a comment that names its source (nothing fetches it).
const uPlotBanner = "/*! https://github.com/leeoniya/uPlot (v1.6.32) */"

// external matches anything a browser could fetch from another origin: an
// absolute or protocol-relative URL in an attribute, a CSS url() or
// @import, or anywhere in the text.
var external = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}|@import|url\(\s*['"]?(https?:)?//`)

// served returns every file served under StaticPrefix and both pages
// rendered with every part present.
func served(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(Assets(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "LICENSE") {
			return err
		}
		b, err := fs.ReadFile(Assets(), path)
		out[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RenderOverview(&buf, sampleOverview()); err != nil {
		t.Fatal(err)
	}
	out["overview"] = buf.String()
	buf.Reset()
	if err := RenderTarget(&buf, sampleTarget()); err != nil {
		t.Fatal(err)
	}
	out["target page"] = buf.String()
	return out
}

func sampleOverview() *Overview {
	return &Overview{Version: "1.2.3", Window: "1h", Confidence: "95 %", Interval: "10s", Targets: []OverviewTarget{{
		Name: "a", Link: "/targets/a", State: "ready", StateClass: "ready", Rate: "1.000/s", ErrorRatio: "—", Drops: "0 of 1 due",
		Objectives:      []Objective{{Name: "default", Verdict: "met", Text: "met", Attainment: "1h 100.0% [99.1, 100.0] of 99%"}},
		LatencyQuantity: "time_to_first_token", LatencyTitle: "TTFT p50 / p99, last hour",
	}}}
}

func sampleTarget() *TargetPage {
	return &TargetPage{Version: "1.2.3", Name: "a", Interval: "10s", Retention: "6h", Legend: "legend",
		API:     APILinks{History: "/api/v1/targets/a/history", Recent: "/api/v1/targets/a/recent", Windows: []Link{{"1m", "/api/v1/targets/a/windows/1m"}}},
		Summary: TargetRow{Name: "a", Model: "m"},
		Windows: &WindowTable{Columns: []Column{{Title: "TTFT p50", Metric: "time_to_first_token", Level: "p50"}, {Title: "SLO d", Objective: "d"}},
			Rows: []WindowRow{{Window: "1m", Cells: []string{"1.0 ms", "—"}}}},
		Recent: []ProbeRow{{Time: "t", Error: `<script>alert("x")</script> https://evil.example/`}},
	}
}

// TestNoExternalURL checks that nothing served refers to another origin,
// so that the pages work offline and inside clusters without egress. The
// one exception is uPlot's banner comment, checked to be exactly that. The
// sample's error text, which holds a URL, is what a server wrote and is
// left out of the search; it is escaped (TestEscaped).
func TestNoExternalURL(t *testing.T) {
	for _, bad := range []string{`<script src="https://cdn.example.com/u.js">`, `<link href="//fonts.googleapis.com/css">`,
		`@import "x.css";`, `background: url(http://img.example/a.png)`} {
		if !external.MatchString(bad) {
			t.Fatalf("the search misses %s", bad)
		}
	}
	for name, text := range served(t) {
		text = strings.Replace(text, uPlotBanner, "", 1)
		text = strings.ReplaceAll(text, "https://evil.example/", "")
		if m := external.FindAllString(text, -1); m != nil {
			t.Errorf("%s refers to another origin: %q", name, m)
		}
	}
	if !strings.HasPrefix(served(t)["uplot/uPlot.iife.min.js"], uPlotBanner+"\n") {
		t.Error("uPlot's first line is not its banner")
	}
}

// TestUPlotVendored pins the vendored library to the files of the npm
// package uplot 1.6.32 (dist/uPlot.iife.min.js, dist/uPlot.min.css and
// LICENSE of `npm pack uplot@1.6.32`).
func TestUPlotVendored(t *testing.T) {
	for path, want := range map[string]string{
		"uplot/uPlot.iife.min.js": "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f",
		"uplot/uPlot.min.css":     "df630c6a8d6f8eeaff264b50f73ce5b114f646ffd9a0bb74f049b0a00135fa04",
		"uplot/LICENSE":           "8f989229699b4fe2f1a0432d0e9edc338a8a911e250e2d1b01ecd770a5f5b1bd",
	} {
		b, err := fs.ReadFile(Assets(), path)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: sha256 %x, want %s", path, sum, want)
		}
	}
}

// TestEscaped checks that a page escapes the text it is given.
func TestEscaped(t *testing.T) {
	page := served(t)["target page"]
	if strings.Contains(page, "<script>alert") || !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
		t.Error("the error text is not escaped")
	}
}

// TestStatic checks the asset handler: types, no caching without a check,
// 404 for a missing file.
func TestStatic(t *testing.T) {
	h := Static()
	for path, want := range map[string]string{
		"/static/app.js": "text/javascript", "/static/style.css": "text/css", "/static/uplot/uPlot.iife.min.js": "text/javascript",
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), want) || rec.Header().Get("Cache-Control") != "no-cache" {
			t.Errorf("%s: %d %q %q", path, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/static/nope.js", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("missing file: %d", rec.Code)
	}
}
