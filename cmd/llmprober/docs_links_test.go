package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink is a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// mdHeading is a Markdown heading line.
var mdHeading = regexp.MustCompile(`^#{1,6} (.+)$`)

// headingAnchor returns the anchor GitHub gives a heading: lower case,
// punctuation but hyphens dropped, spaces as hyphens.
func headingAnchor(h string) string {
	h = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`).ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), "")
	return strings.ReplaceAll(h, " ", "-")
}

// proseLines returns the lines of a Markdown file outside code blocks.
func proseLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	code := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			code = !code
		}
		if !code {
			out = append(out, l)
		}
	}
	return out
}

// TestDocsLinks checks every relative link of README.md, CHANGELOG.md and
// docs/*.md: its file exists and, into a Markdown page, its anchor is one
// of that page's headings.
func TestDocsLinks(t *testing.T) {
	pages, _ := filepath.Glob("../../docs/*.md")
	pages = append(pages, "../../README.md", "../../CHANGELOG.md")
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if anchors[path] == nil {
			anchors[path] = map[string]bool{}
			for _, l := range proseLines(t, path) {
				if m := mdHeading.FindStringSubmatch(l); m != nil {
					anchors[path][headingAnchor(m[1])] = true
				}
			}
		}
		return anchors[path]
	}
	for _, page := range pages {
		for _, l := range proseLines(t, page) {
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %s: %v", page, target, err)
					continue
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
					t.Errorf("%s: link %s: no such heading in %s", page, target, path)
				}
			}
		}
	}
}
