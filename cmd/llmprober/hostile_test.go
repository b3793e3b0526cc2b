package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// The helpers of the fault matrix (faultmatrix_test.go): servers that
// misbehave on purpose, and the search for a planted key in everything
// llmprober shows.

// hostileKey is the API key the fault matrix plants: its characters make
// each encoding differ from the raw key (URL escaping of '/', '+', '=' and
// '"', JSON escaping of '"', '<' and '>').
const hostileKey = `sk-PLANTED/0123+456789=abc"def<KEY>`

// keyForms returns the forms in which hostileKey could leak, by name: as
// is, URL-encoded, JSON-escaped, and the characters of its base64
// encodings (standard and URL alphabets) that depend on the key alone, at
// each of the three alignments it can have inside a longer base64 text.
func keyForms(key string) map[string]string {
	j, _ := json.Marshal(key)
	forms := map[string]string{
		"raw": key, "query-escaped": url.QueryEscape(key), "path-escaped": url.PathEscape(key),
		"JSON-escaped": string(j[1 : len(j)-1]),
	}
	for offset := range 3 {
		enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, offset), key...))
		mid := enc[(8*offset+5)/6 : 8*(offset+len(key))/6]
		forms[fmt.Sprintf("base64 at %d", offset)] = mid
		forms[fmt.Sprintf("base64url at %d", offset)] = strings.NewReplacer("+", "-", "/", "_").Replace(mid)
	}
	return forms
}

// leaks returns the forms of key that text contains, as it is or with the
// escaping of its own format undone: HTML (the landing page), and the
// quoting of log values and JSON strings (backslashes and quotes).
func leaks(text, key string) []string {
	texts := []string{text, html.UnescapeString(text), strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(text)}
	var found []string
	for name, form := range keyForms(key) {
		for _, t := range texts {
			if strings.Contains(t, form) {
				found = append(found, name)
				break
			}
		}
	}
	return found
}

// bearer returns the key a request carries in Authorization.
func bearer(r *http.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// counted wraps h and counts the requests it serves.
type counted struct {
	h http.Handler
	n atomic.Int64
}

func (c *counted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// serve starts h on loopback for the test.
func serve(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// statusHandler answers every request with status, the extra headers and
// the body that body makes of the request.
func statusHandler(status int, hdr map[string]string, body func(r *http.Request) string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = fmt.Fprint(w, body(r))
	}
}

// reflecting are servers that put the key their client sent into their
// error answers, as a careless proxy might, in each form and at several
// offsets of the message (up to the 200-character cut of error texts).
func reflecting() map[string]http.Handler {
	jsonErr := func(msg string) string {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		return string(b)
	}
	hs := map[string]http.Handler{
		"reflect-json": statusHandler(500, map[string]string{"Content-Type": "application/json"},
			func(r *http.Request) string { return jsonErr("invalid key " + bearer(r)) }),
		"reflect-query": statusHandler(401, nil,
			func(r *http.Request) string { return "denied: /v1?key=" + url.QueryEscape(bearer(r)) + "&x=1" }),
		"reflect-path": statusHandler(401, nil,
			func(r *http.Request) string { return "denied: /keys/" + url.PathEscape(bearer(r)) + "/x" }),
		"reflect-basic": statusHandler(403, nil, func(r *http.Request) string {
			return "bad credential Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+bearer(r)))
		}),
		"reflect-basic-url": statusHandler(403, nil, func(r *http.Request) string {
			return "token " + base64.URLEncoding.EncodeToString([]byte("a"+bearer(r)+"c"))
		}),
		"reflect-b64": statusHandler(403, nil, func(r *http.Request) string {
			return "token " + base64.StdEncoding.EncodeToString([]byte(bearer(r)))
		}),
		"reflect-b64-1": statusHandler(403, nil, func(r *http.Request) string {
			return "token " + base64.StdEncoding.EncodeToString([]byte("u"+bearer(r)))
		}),
		"reflect-json-text": statusHandler(502, nil, func(r *http.Request) string {
			b, _ := json.Marshal(bearer(r))
			return `upstream said: {"key": ` + string(b) // cut short: not JSON
		}),
		"reflect-escaped": statusHandler(400, map[string]string{"Content-Type": "application/json"}, func(r *http.Request) string {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "param": bearer(r)}})
			return string(b)
		}),
		"reflect-stream": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = fmt.Fprintf(w, "data: %s\n\n", jsonErr("stream refused for "+bearer(r)))
		}),
	}
	for _, offset := range []int{0, 1, 150, 170, 180, 199} {
		hs[fmt.Sprintf("reflect-at-%d", offset)] = statusHandler(500, map[string]string{"Content-Type": "application/json"},
			func(r *http.Request) string { return jsonErr(strings.Repeat("x", offset) + bearer(r) + " rest") })
	}
	return hs
}
