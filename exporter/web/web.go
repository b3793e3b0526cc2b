// Package web is llmprober's status pages: the overview of every target and
// a page per target, their templates, style sheet and script, and the
// uPlot charting library (MIT licence, static/uplot/LICENSE), all embedded
// in the binary. A page is rendered with the figures it is given; its
// script then refreshes it from the JSON status API, without reloading.
// Nothing it serves refers to another origin. It imports nothing of ours:
// package exporter fills its view models.
package web

import (
	"embed"
	"html/template"
	"io"
	"io/fs"
	"net/http"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages are the parsed templates; html/template escapes every value.
var pages = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// Static returns the handler of the embedded assets, to be mounted at
// StaticPrefix: the style sheet, the script and uPlot.
func Static() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embedded tree always has it
	}
	files := http.StripPrefix(StaticPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}

// StaticPrefix is the path under which Static serves.
const StaticPrefix = "/static/"

// Assets returns every embedded file served under StaticPrefix, by path
// relative to it; for tests that read what is served.
func Assets() fs.FS {
	sub, _ := fs.Sub(staticFS, "static")
	return sub
}

// RenderOverview writes the overview page of o.
func RenderOverview(w io.Writer, o *Overview) error {
	return pages.ExecuteTemplate(w, "overview.html", o)
}

// RenderTarget writes the page of one target.
func RenderTarget(w io.Writer, p *TargetPage) error {
	return pages.ExecuteTemplate(w, "target.html", p)
}

// Inline is the text of the embedded asset at path, relative to
// StaticPrefix ("style.css", "uplot/uPlot.iife.min.js", "uplot/uPlot.min.css"),
// for a document that carries its scripts and styles in itself (the
// benchmark's HTML report); it panics when path is not embedded, a
// programming error.
func Inline(path string) string {
	b, err := fs.ReadFile(staticFS, "static/"+path)
	if err != nil {
		panic(err)
	}
	return string(b)
}
