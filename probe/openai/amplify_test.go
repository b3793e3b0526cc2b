package openai

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/probe/internal/endless"
)

// maxRetained bounds the live heap one request keeps while it reads an
// adversarial response, in bytes: the SSE reader's 4 × 1 MiB, or a whole
// body's buffer (4 MiB in these tests, and the 2 MiB it grew from while it
// copies) and what decoding keeps, and 1 MiB of slack.
const maxRetained = 9 << 20

// endlessTransport answers every request with a status, headers and an
// endless.Reader as its body.
type endlessTransport struct {
	status int
	header http.Header
	body   *endless.Reader
}

func (e endlessTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	return &http.Response{StatusCode: e.status, Header: e.header.Clone(), Body: io.NopCloser(e.body), Request: r}, nil
}

// amplifyCase is one adversarial response: a shape, its headers, and the
// text the request's error must hold.
type amplifyCase struct {
	shape  endless.Shape
	header http.Header
	want   string
}

// TestStreamAmplification feeds every adversarial shape of an event
// stream (and gzip bytes with and without Content-Encoding: gzip), at 16
// and 64 MiB, as the body of a streamed response read with
// MaxStreamBytes 4 MiB: each request is errored, protocol, naming the
// bound it crossed, and the live heap while it reads grows by less than
// maxRetained at both lengths.
func TestStreamAmplification(t *testing.T) {
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	ends := map[string]string{
		"no colons":                    "more than 64 non-standard fields",
		"no newlines":                  "line longer than 1048576 bytes",
		"one giant field":              "line longer than 1048576 bytes",
		"one giant non-standard field": "line longer than 1048576 bytes",
		"many tiny fields":             "more than 64 non-standard fields",
		"many data lines":              "event (data, type and fields) longer than 1048576 bytes",
		"many event types":             "event (data, type and fields) longer than 1048576 bytes",
		"comments forever":             "stream longer than 4194304 bytes",
		"blank lines forever":          "stream longer than 4194304 bytes",
		"compressed junk":              "event too large",
	}
	var cases []amplifyCase
	for _, s := range endless.SSEShapes() {
		cases = append(cases, amplifyCase{shape: s, header: sse, want: ends[s.Name]})
	}
	gz := endless.Shape{Name: "uninvited gzip", Pattern: endless.Gzip(content("x"))}
	cases = append(cases, amplifyCase{shape: gz, want: `response in Content-Encoding "gzip", which was not asked for`,
		header: http.Header{"Content-Type": {"text/event-stream"}, "Content-Encoding": {"gzip"}}})
	runAmplify(t, cases, func(c *Config) { c.Stream, c.MaxStreamBytes = true, 4<<20 })
}

// TestBodyAmplification feeds every adversarial shape of a JSON message,
// endless, at 16 and 64 MiB, as a whole response read with MaxBodyBytes 4
// MiB: each request is errored, protocol, naming the body limit (a body
// that never ends is cut there), and the live heap grows by less than
// maxRetained at both lengths.
func TestBodyAmplification(t *testing.T) {
	var cases []amplifyCase
	for _, s := range endless.JSONShapes() {
		cases = append(cases, amplifyCase{shape: s, header: http.Header{"Content-Type": {"application/json"}},
			want: "response body larger than 4194304 bytes"})
	}
	runAmplify(t, cases, func(c *Config) { c.MaxBodyBytes = 4 << 20 })
}

// runAmplify runs each case at 16 and 64 MiB with a backend edited by edit.
func runAmplify(t *testing.T, cases []amplifyCase, edit func(*Config)) {
	for _, tc := range cases {
		if tc.want == "" {
			t.Fatalf("shape %q has no expected end", tc.shape.Name)
		}
		t.Run(tc.shape.Name, func(t *testing.T) {
			for _, n := range []int64{16 << 20, 64 << 20} {
				rec, retained := amplify(t, tc, n, edit)
				if rec.Outcome != probe.Errored || rec.ErrorType != probe.ErrorProtocol || !strings.Contains(rec.Error, tc.want) {
					t.Fatalf("%d MiB: %s %s %q, want errored protocol with %q", n>>20, rec.Outcome, rec.ErrorType, rec.Error, tc.want)
				}
				if retained > maxRetained {
					t.Errorf("%d MiB: live heap grew by %d bytes, want at most %d", n>>20, retained, maxRetained)
				}
				t.Logf("%d MiB: live heap grew by at most %d bytes", n>>20, retained)
			}
		})
	}
}

// amplify sends one request answered with n bytes of tc's shape and
// returns its record and the largest growth of the live heap meanwhile.
func amplify(t *testing.T, tc amplifyCase, n int64, edit func(*Config)) (*probe.Record, uint64) {
	src := endless.New(tc.shape.Prefix, tc.shape.Pattern, n)
	client := &http.Client{Transport: endlessTransport{status: http.StatusOK, header: tc.header, body: src}}
	cfg := Config{Target: "t1", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Client: client, Clock: clock.NewFake(t0)}
	edit(&cfg)
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	base := endless.LiveHeap()
	rec := b.Do(context.Background(), request())
	peak := max(src.Peak(), base)
	return rec, peak - base
}

// TestWholeBodyBounds reads whole responses that keep the most per byte
// sent: arrays of empty choices or tool calls (about 150 and 24 bytes
// kept per 3 and 2 bytes sent, were they decoded) up to and past
// probe.MaxResponseItems, by the walk and by encoding/json (an escaped
// member name makes the walk give up), and nesting past the depth
// encoding/json takes (10000).
func TestWholeBodyBounds(t *testing.T) {
	const limit = probe.MaxResponseItems
	items := func(n int, item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	tooMany := "could not decode response: more than 1024 items in an array"
	tests := []struct {
		name, body, want string
	}{
		{"choices at the bound", `{"choices":[` + items(limit, `{"text":"a"}`) + `]}`, ""},
		{"choices past the bound", `{"choices":[` + items(limit+1, `{"text":"a"}`) + `]}`, tooMany},
		{"choices past the bound, slow", `{"ch\u006fices":[` + items(limit+1, "{}") + `]}`, tooMany},
		{"tool calls at the bound", `{"choices":[{"message":{"tool_calls":[` + items(limit, "1") + `]}}]}`, ""},
		{"tool calls past the bound", `{"choices":[{"message":{"tool_calls":[` + items(limit+1, "1") + `]}}]}`, tooMany},
		{"tool calls past the bound, slow", `{"choices":[{"m\u0065ssage":{"tool_calls":[` + items(limit+1, "1") + `]}}]}`, tooMany},
		{"deep nesting", `{"choices":[{"message":{"tool_calls":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}]}`,
			"could not decode response: invalid character '[' exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: memTransport{status: http.StatusOK, ctype: "application/json", body: []byte(tt.body)}}
			b, err := New(Config{Target: "t1", BaseURL: "http://127.0.0.1:1/v1", Model: "m", Client: client, Clock: clock.NewFake(t0)})
			if err != nil {
				t.Fatal(err)
			}
			rec := b.Do(context.Background(), request())
			switch {
			case tt.want == "" && rec.Outcome != probe.Successful:
				t.Fatalf("%s %s %q, want successful", rec.Outcome, rec.ErrorType, rec.Error)
			case tt.want != "" && (rec.ErrorType != probe.ErrorProtocol || !strings.HasPrefix(rec.Error, tt.want)):
				t.Fatalf("%s %s %q, want protocol %q", rec.Outcome, rec.ErrorType, rec.Error, tt.want)
			}
		})
	}
}
