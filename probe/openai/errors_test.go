package openai

import (
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// falsy are the error members that report no error, as a client's `if
// error:` passes over them; truthy are members that do, with the message
// and code of the error they report.
var (
	falsy  = []string{`null`, `false`, `0`, `-0`, `0.0`, `0e5`, `""`, `[]`, `{}`, `[ ]`, `{ }`}
	truthy = []struct{ member, code, msg string }{
		{`true`, "", "true"}, {`1`, "", "1"}, {`"0"`, "", "0"}, {`"false"`, "", "false"}, {`[0]`, "", "[0]"},
		{`{"message":"m","code":7}`, "7", "m"}, {`"rate limited"`, "", "rate limited"},
	}
)

// errorMemberShapes place an error member V in a chunk or a whole
// response of each API: at the top level and inside the choice.
var errorMemberShapes = []struct {
	name, api string
	stream    bool
	body      func(v string) string
}{
	{"chat stream, top level", "chat", true, func(v string) string {
		return data(`{"choices":[{"index":0,"delta":{"content":"Hi"}}],"error":` + v + `}`)
	}},
	{"chat stream, in the choice", "chat", true, func(v string) string {
		return data(`{"choices":[{"index":0,"delta":{"content":"Hi"},"error":` + v + `}]}`)
	}},
	{"completions stream, top level", "completions", true, func(v string) string {
		return data(`{"choices":[{"index":0,"text":"Hi"}],"error":` + v + `}`)
	}},
	{"whole chat, top level", "chat", false, func(v string) string {
		return `{"choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1},"error":` + v + `}`
	}},
	{"whole completions, in the choice", "completions", false, func(v string) string {
		return `{"choices":[{"index":0,"text":"Hi","finish_reason":"stop","error":` + v + `}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`
	}},
}

// runShape serves body to one request of the shape's API: a stream sends
// a role chunk at 100 ms, body at 300 ms, then unless failing a finish
// chunk and [DONE] at 350 ms (else [DONE] with body, which the client
// does not read); a whole response is body at 300 ms.
func runShape(t *testing.T, api string, stream, failing bool, body string) *probe.Record {
	t.Helper()
	s := &script{contentType: "application/json", steps: []step{{ms(300), body}}}
	switch {
	case stream && failing:
		s = &script{steps: []step{{ms(100), role}, {ms(200), body + done}}}
	case stream:
		s = &script{steps: []step{{ms(100), role}, {ms(200), body}, {ms(50), finish + done}}}
	}
	return runScript(t, s, func(c *Config) { c.API, c.Stream = api, stream })
}

// TestFalsyErrorMembers: an error member that is not set is no error, in
// every API and place; one that is set fails the request with its message
// and code: stream_error in a stream (after the role chunk; TTFT absent),
// protocol in a whole response.
func TestFalsyErrorMembers(t *testing.T) {
	for _, sh := range errorMemberShapes {
		for _, v := range falsy {
			t.Run(sh.name+" "+v, func(t *testing.T) {
				rec := runShape(t, sh.api, sh.stream, false, sh.body(v))
				want := judged{outcome: probe.Successful, ttft: ms(300), counts: counted(3, 1), verdict: conforming}
				if !sh.stream {
					want.ttft, want.counts = -1, counts{output: 1, outputFrom: probe.TokensFromUsage, prompt: 9, promptFrom: probe.TokensFromUsage}
				}
				want.check(t, rec)
			})
		}
		for _, tt := range truthy {
			t.Run(sh.name+" "+tt.member, func(t *testing.T) {
				rec := runShape(t, sh.api, sh.stream, true, sh.body(tt.member))
				want := judged{outcome: probe.Errored, errType: probe.ErrorStream, code: tt.code, errText: "stream error: " + tt.msg,
					ttft: -1, counts: counted(2, 0), verdict: streamFailed}
				if !sh.stream {
					want = judged{outcome: probe.Errored, errType: probe.ErrorProtocol, code: tt.code, errText: "error in response: " + tt.msg,
						ttft: -1, counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: badProtocol}
				}
				want.check(t, rec)
			})
		}
	}
}

// TestErrorReports: the reports that are errors although they have no
// error member at the top level: an error inside a choice, a
// finish_reason "error", and bare reports without choices ({"message":…,
// "code":…}, FastAPI's {"detail":…}), in a stream (stream_error after the
// role chunk), a whole response (protocol) and the completions API; and
// chunks like them that are not errors.
func TestErrorReports(t *testing.T) {
	tests := []struct {
		name, report, code, msg string
	}{
		{"an error in a choice", `{"choices":[{"index":0,"delta":{},"finish_reason":null,"error":{"message":"choice err","code":500}}]}`, "500", "choice err"},
		{"finish_reason error alone", `{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}`, "", `finish_reason "error"`},
		{"finish_reason error with OpenRouter's error", `{"choices":[{"index":0,"delta":{},"finish_reason":"error"}],"error":{"message":"provider died","code":502}}`,
			"502", "provider died"},
		{"completions finish_reason error", `{"choices":[{"index":0,"text":"","finish_reason":"error"}]}`, "", `finish_reason "error"`},
		{"a bare message and code", `{"message":"top-level message only","code":11}`, "11", "top-level message only"},
		{"FastAPI's detail", `{"detail":"FastAPI style detail"}`, "", "FastAPI style detail"},
		{"FastAPI's detail list", `{"detail":[{"loc":["body"],"msg":"field required"}]}`, "", `[{"loc":["body"],"msg":"field required"}]`},
	}
	for _, tt := range tests {
		t.Run("stream: "+tt.name, func(t *testing.T) {
			rec := runShape(t, "chat", true, true, data(tt.report))
			judged{outcome: probe.Errored, errType: probe.ErrorStream, code: tt.code, errText: "stream error: " + tt.msg,
				ttft: -1, counts: counted(2, 0), verdict: streamFailed}.check(t, rec)
		})
		t.Run("whole: "+tt.name, func(t *testing.T) {
			rec := runShape(t, "completions", false, true, tt.report)
			judged{outcome: probe.Errored, errType: probe.ErrorProtocol, code: tt.code, errText: "error in response: " + tt.msg,
				ttft: -1, counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: badProtocol}.check(t, rec)
		})
	}
	for _, c := range []string{`{"choices":[],"message":"not bare: it has choices"}`, `{"message":""}`, `{"message":null,"detail":null}`,
		`{"detail":""}`, `{"type":"ping"}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`} {
		t.Run("no error: "+c, func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{{ms(100), role}, {ms(200), data(c)}, {ms(50), content("Hi")}, {0, finish + done}}}, nil)
			judged{outcome: probe.Successful, ttft: ms(350), counts: counted(4, 1), verdict: conforming}.check(t, rec)
		})
	}
}

// bomText is the UTF-8 byte order mark, which RFC 8259 lets a parser ignore.
const bomText = "\xef\xbb\xbf"

// TestByteOrderMark: a JSON text that begins with a byte order mark is
// read as without it: a whole response (chat and completions, 1 token by
// usage), an error body (its message and code kept), a stream chunk's
// data (the token at 300 ms) and, as the SSE format says, the body of a
// stream.
func TestByteOrderMark(t *testing.T) {
	whole := counts{output: 1, outputFrom: probe.TokensFromUsage, prompt: 9, promptFrom: probe.TokensFromUsage}
	rec := runShape(t, "chat", false, false, bomText+`{"choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`)
	judged{outcome: probe.Successful, ttft: -1, counts: whole, verdict: conforming}.check(t, rec)
	rec = runShape(t, "completions", false, false, bomText+`{"choices":[{"index":0,"text":"Hi","finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`)
	judged{outcome: probe.Successful, ttft: -1, counts: whole, verdict: conforming}.check(t, rec)
	rec = runScript(t, &script{status: 503, contentType: "application/json", steps: []step{{ms(20), bomText + `{"error":{"message":"loading","code":"model_loading"}}`}}}, nil)
	judged{outcome: probe.Errored, errType: probe.ErrorHTTP5xx, code: `"model_loading"`, errText: "HTTP 503: loading", ttft: -1,
		counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: slo.Result{Verdict: slo.NonConforming, Reason: string(probe.ErrorHTTP5xx)}}.check(t, rec)
	rec = runShape(t, "chat", true, false, "data: "+bomText+`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`+"\n\n")
	judged{outcome: probe.Successful, ttft: ms(300), counts: counted(3, 1), verdict: conforming}.check(t, rec)
	rec = runScript(t, &script{steps: []step{{ms(300), bomText + content("Hi")}, {ms(50), finish + done}}}, nil)
	judged{outcome: probe.Successful, ttft: ms(300), counts: counted(2, 1), verdict: conforming}.check(t, rec)
}

// TestStreamContentTypes: a streamed request's body is read as SSE when
// its Content-Type says so, or when it begins like SSE whatever its type
// or with none (the role chunk at 100 ms, "Hi" at 300 ms); a body that
// begins like JSON is a whole response, a protocol error that says the
// server ignored stream: true (keeping the error it reports, if any); and
// a body that is neither is a protocol error naming its type. A request
// with stream false answered with SSE is a protocol error that says so.
func TestStreamContentTypes(t *testing.T) {
	sseSteps := []step{{ms(100), role}, {ms(200), content("Hi")}, {ms(50), finish + done}}
	for _, ct := range []string{noContentType, "application/json", "text/plain; charset=utf-8", "text/event-stream; charset=utf-8", "TEXT/EVENT-STREAM"} {
		t.Run("SSE with "+ct, func(t *testing.T) {
			rec := runScript(t, &script{contentType: ct, steps: sseSteps}, nil)
			judged{outcome: probe.Successful, ttft: ms(300), counts: counted(3, 1), verdict: conforming}.check(t, rec)
		})
	}
	for _, start := range []string{": ok\n\n", "\n\nevent: message\n", "\r\nid: 1\n\n", bomText + "retry: 10\n\n", "d", "da", "dat"} {
		t.Run("SSE starting "+start, func(t *testing.T) {
			steps := append([]step{{ms(100), start}}, sseSteps...)
			steps[1].wait = 0
			if len(start) < 4 {
				steps = append([]step{{ms(100), start}, {0, "ata: "[len(start)-1:] + `{"choices":[]}` + "\n\n" + role}}, sseSteps[1:]...)
			}
			rec := runScript(t, &script{contentType: noContentType, steps: steps}, nil)
			if rec.Outcome != probe.Successful || rec.Iterations != 1 {
				t.Fatalf("outcome %s %q, %d tokens; want successful, 1", rec.Outcome, rec.Error, rec.Iterations)
			}
			if d, _ := rec.TTFT(); d != ms(300) {
				t.Errorf("TTFT %v, want 300ms", d)
			}
		})
	}
	wholeJSON := `{"choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`
	const ignored = "server ignored stream: true: the body is JSON, not SSE"
	failures := []struct{ name, ct, body, code, text string }{
		{"a whole response", "application/json", wholeJSON, "", ignored},
		{"a whole response without a type", noContentType, "\n  " + wholeJSON, "", ignored},
		{"a whole response called a stream", "text/event-stream", bomText + wholeJSON, "", ignored},
		{"an error response", "application/json", `{"error":{"message":"no streaming here","code":"unsupported"}}`, `"unsupported"`, ignored + ": no streaming here"},
		{"an array", "application/json", `[1]`, "", ignored},
		{"HTML without a type", noContentType, "<html>login</html>", "", "stream body is not SSE (no Content-Type): <html>login</html>"},
		{"an empty body without a type", noContentType, "", "", "stream body is not SSE (no Content-Type)"},
		{"text that only starts like a field", "text/plain", "datum: x", "", `unexpected content type "text/plain" for a stream: datum: x`},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{contentType: tt.ct, steps: []step{{ms(40), tt.body}}}, nil)
			judged{outcome: probe.Errored, errType: probe.ErrorProtocol, code: tt.code, errText: tt.text, ttft: -1,
				counts: counted(0, 0), verdict: badProtocol}.check(t, rec)
		})
	}
	// The other way round: SSE answering a request with stream false.
	for _, ct := range []string{"text/event-stream", "application/json", noContentType} {
		rec := runScript(t, &script{contentType: ct, steps: []step{{ms(40), "\n" + role + content("Hi") + finish + done}}},
			func(c *Config) { c.Stream = false })
		judged{outcome: probe.Errored, errType: probe.ErrorProtocol, errText: "server ignored stream: false: the body is SSE, not JSON", ttft: -1,
			counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: badProtocol}.check(t, rec)
	}
}

// TestErrorCodeKinds: a stream error's code keeps its JSON type (the
// record's ErrorCode as the landing page shows it): 400 and "400" differ,
// a number is kept as written, other values as their compact JSON text,
// and every code is bounded to probe.MaxErrorCodeChars.
func TestErrorCodeKinds(t *testing.T) {
	z, nines := strings.Repeat("Z", 5000), strings.Repeat("9", 100)
	for _, tt := range []struct{ code, want string }{
		{`400`, `400`}, {`"400"`, `"400"`}, {`1.5e3`, `1.5e3`}, {`{"x":1}`, `{"x":1}`}, {`true`, `true`}, {`[1, 2]`, `[1,2]`},
		{`"a\nb"`, `"a b"`}, {`"` + z + `"`, `"` + z[:probe.MaxErrorCodeChars-1] + `…"`}, {nines, nines[:probe.MaxErrorCodeChars-1] + "…"},
		{`null`, ``}, {`""`, ``},
	} {
		t.Run(tt.code[:min(len(tt.code), 20)], func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{{ms(30), data(`{"error":{"message":"m","code":`+tt.code+`}}`) + done}}}, nil)
			judged{outcome: probe.Errored, errType: probe.ErrorStream, code: tt.want, errText: "stream error: m",
				ttft: -1, counts: counted(1, 0), verdict: streamFailed}.check(t, rec)
		})
	}
}
