package openai

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

// latencyOnly is an objective set without token quantities: only an empty
// reply or an error can fail it.
var latencyOnly = slo.Objective{Name: "latency", Attainment: 0.99, Period: 30 * 24 * time.Hour,
	Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: 5 * time.Second}}}

// judged is what a test expects of one request: outcome, error type, code
// and text, TTFT (−1 when absent), token counts and sources, the usage
// flags, and the verdict under latencyOnly. The scripts run on a fake
// clock that moves only between writes, and each write is handled before
// the next, so every instant is the script's send time exactly: the bound
// on TTFT is 0.
type judged struct {
	outcome      probe.Outcome
	errType      probe.ErrorType
	code         string
	errText      string // the record's error text; "" for none
	ttft         time.Duration
	counts       counts
	inconsistent bool
	clamped      bool
	verdict      slo.Result
}

// check compares rec with j.
func (j judged) check(t *testing.T, rec *probe.Record) {
	t.Helper()
	if rec.Outcome != j.outcome || rec.ErrorType != j.errType || rec.ErrorCode.String() != j.code || rec.Error != j.errText {
		t.Errorf("outcome %s/%s code %q %q, want %s/%s code %q %q",
			rec.Outcome, rec.ErrorType, rec.ErrorCode.String(), rec.Error, j.outcome, j.errType, j.code, j.errText)
	}
	if got := sinceStart(rec.TTFT()); got != j.ttft {
		t.Errorf("TTFT %v, want %v", got, j.ttft)
	}
	if got := countsOf(rec); got != j.counts {
		t.Errorf("counts %+v, want %+v", got, j.counts)
	}
	if rec.UsageInconsistent != j.inconsistent || rec.TokensClamped != j.clamped {
		t.Errorf("usage inconsistent %v, clamped %v; want %v, %v", rec.UsageInconsistent, rec.TokensClamped, j.inconsistent, j.clamped)
	}
	if got := latencyOnly.Evaluate(rec); got != j.verdict {
		t.Errorf("verdict under {latency: 5s} %+v, want %+v", got, j.verdict)
	}
}

var (
	conforming   = slo.Result{Verdict: slo.Conforming}
	emptyReply   = slo.Result{Verdict: slo.NonConforming, Reason: slo.ReasonInsufficientOutput}
	streamFailed = slo.Result{Verdict: slo.NonConforming, Reason: string(probe.ErrorStream)}
	badProtocol  = slo.Result{Verdict: slo.NonConforming, Reason: string(probe.ErrorProtocol)}
)

// role, finish and usage are the chunks around a stream's tokens.
var (
	role   = chatDelta(`{"role":"assistant","content":null}`)
	finish = data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
)

func usageChunk(u string) string { return data(`{"choices":[],"usage":` + u + `}`) }

// counted is the counts of n token events in c chunks with the
// workload's prompt length.
func counted(chunks, n int) counts {
	return counts{chunks: chunks, iterations: n, output: n, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload}
}

// TestHeartbeats covers the keep-alive frames relays and providers send
// between chunks: a role chunk at 250 ms, the heartbeat at 400 ms, "Hi" at
// 800 ms, a finish chunk and [DONE]. Each is skipped: successful, TTFT
// 800 ms, 1 token, 3 chunks (the heartbeat is no chunk). data:{} is not a
// heartbeat but a chunk without tokens.
func TestHeartbeats(t *testing.T) {
	for _, hb := range []string{
		"data:\n\n", "data: \n\n", "data:    \n\n", "data: : keepalive\n\n", "data::\n\n", "data:  :ping\n\n",
		"data:\ndata:\n\n", ": keep-alive\n\n", ":\n\n", "event: ping\n\n", "event: ping\ndata: {}\n\n",
		"event: keepalive\ndata: \n\n", "id: 9\n\n", "retry: 3000\n\n", "\n\n\n", "\r\n\r\n",
		"event: message\n\n", "x-heartbeat: 1\n\n",
	} {
		t.Run(strings.TrimSpace(hb), func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{
				{ms(250), role}, {ms(150), hb}, {ms(400), content("Hi")}, {0, finish + done},
			}}, nil)
			judged{outcome: probe.Successful, ttft: ms(800), counts: counted(3, 1), verdict: conforming}.check(t, rec)
		})
	}
	rec := runScript(t, &script{steps: []step{
		{ms(250), role}, {ms(150), "data:{}\n\n"}, {ms(400), content("Hi")}, {0, finish + done},
	}}, nil)
	judged{outcome: probe.Successful, ttft: ms(800), counts: counted(4, 1), verdict: conforming}.check(t, rec)
}

// TestUnsetErrorFields: an SSE error field that is not set, by the rule of
// a JSON error member, reports nothing, and the stream goes on: a role
// chunk at 250 ms, the field at 400 ms, "Hi" at 800 ms (TTFT 800 ms, 1
// token); a field with data after it is a heartbeat's place too.
func TestUnsetErrorFields(t *testing.T) {
	for _, field := range []string{"error:\n\n", "error: null\n\n", "error: false\n\n", "error: {}\n\n", "error: \"\"\n\n", "error: []\n\n", "error: 0\n\n"} {
		t.Run(strings.TrimSpace(field), func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{
				{ms(250), role}, {ms(150), field}, {ms(400), content("Hi")}, {0, finish + done},
			}}, nil)
			judged{outcome: probe.Successful, ttft: ms(800), counts: counted(3, 1), verdict: conforming}.check(t, rec)
		})
	}
}

// TestErrorFrames covers every way servers report an error inside a 200
// stream: each is a stream error with its message and code kept, after a
// role chunk at 250 ms and "Hi" at 800 ms (TTFT 800 ms, 1 token counted).
func TestErrorFrames(t *testing.T) {
	tests := []struct {
		name, frame, code, text string
		chunks                  int
	}{
		{"llama.cpp error field", `error: {"code":400,"message":"the request exceeds the available context size","type":"invalid_request_error"}` + "\n\n",
			"400", "stream error: the request exceeds the available context size", 2},
		{"llama.cpp error field with data after it", "error: {\"code\":500,\"message\":\"boom\"}\ndata: {\"choices\":[]}\n\n", "500", "stream error: boom", 2},
		{"error field of plain text", "error: backend gone\n\n", "", "stream error: backend gone", 2},
		{"event: error with an OpenAI error object", "event: error\ndata: {\"error\":{\"message\":\"overloaded\",\"code\":503}}\n\n", "503", "stream error: overloaded", 2},
		{"event: error without data", "event: error\n\n", "", "stream error event", 2},
		{"OpenAI error chunk", data(`{"error":{"message":"server_error","type":"server_error","code":"internal"}}`), `"internal"`, "stream error: server_error", 3},
		{"TGI error string", data(`{"error":"Request failed during generation","error_type":"generation"}`), "", "stream error: Request failed during generation", 3},
		{"type error chunk", data(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), "", "stream error: Overloaded", 3},
		{"vLLM's top-level error object", data(`{"object":"error","message":"out of memory","type":"InternalServerError","param":null,"code":500}`), "500", "stream error: out of memory", 3},
		{"type error without an error member", data(`{"type":"error","message":"quota","code":"insufficient_quota"}`), `"insufficient_quota"`, "stream error: quota", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{
				{ms(250), role}, {ms(550), content("Hi")}, {ms(100), tt.frame + done},
			}}, nil)
			judged{outcome: probe.Errored, errType: probe.ErrorStream, code: tt.code, errText: tt.text,
				ttft: ms(800), counts: counted(tt.chunks, 1), verdict: streamFailed}.check(t, rec)
		})
	}
	// The case: an error field, then [DONE], and nothing else.
	rec := runScript(t, &script{steps: []step{
		{ms(30), `error: {"code":400,"message":"the request exceeds the available context size","type":"invalid_request_error"}` + "\n\n" + done},
	}}, nil)
	judged{outcome: probe.Errored, errType: probe.ErrorStream, code: "400",
		errText: "stream error: the request exceeds the available context size",
		ttft:    -1, counts: counted(0, 0), verdict: streamFailed}.check(t, rec)
}

// TestEmptyReplies: a stream without a token event is successful but
// conforms to no objective set, a latency-only one included, whatever its
// usage says.
func TestEmptyReplies(t *testing.T) {
	tests := []struct {
		name   string
		steps  []step
		counts counts
	}{
		{"DONE alone", []step{{ms(40), done}}, counted(0, 0)},
		{"role, empty content, finish, usage 0", []step{{ms(20), role}, {ms(10), content("")}, {ms(10), finish},
			{0, usageChunk(`{"prompt_tokens":7,"completion_tokens":0}`) + done}},
			counts{chunks: 4, outputFrom: probe.TokensFromUsage, prompt: 7, promptFrom: probe.TokensFromUsage}},
		{"usage claiming tokens that never came: inconsistent", []step{{ms(20), role}, {ms(10), finish},
			{ms(10), usageChunk(`{"prompt_tokens":7,"completion_tokens":5}`) + done}},
			counts{chunks: 3, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromUsage}},
		{"only heartbeats and a finish", []step{{ms(20), "data:\n\n"}, {ms(10), ": ping\n\n"}, {ms(10), finish}}, counted(1, 0)},
		{"completions with empty text", []step{{ms(20), data(`{"choices":[{"text":""}]}`)}, {ms(20), data(`{"choices":[{"text":null,"finish_reason":"stop"}]}`) + done}},
			counted(2, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{steps: tt.steps}, nil)
			judged{outcome: probe.Successful, ttft: -1, counts: tt.counts, verdict: emptyReply,
				inconsistent: strings.Contains(tt.name, "inconsistent")}.check(t, rec)
			if _, ok := rec.TPOT(); ok {
				t.Errorf("TPOT defined for an empty reply")
			}
		})
	}
}

// TestInconsistentUsage: "Hi" at 100 ms and " there" at 150 ms, then a
// usage chunk. A report of fewer output tokens than token events, or a
// count that is not a whole number, is not taken: the 2 events are
// counted, and the record says so. Whole numbers too large to hold are
// clamped to probe.MaxTokens, and the record says so.
func TestInconsistentUsage(t *testing.T) {
	fromUsage := func(out, prompt int) counts {
		return counts{chunks: 4, iterations: 2, output: out, outputFrom: probe.TokensFromUsage, prompt: prompt, promptFrom: probe.TokensFromUsage}
	}
	tests := []struct {
		name, usage  string
		counts       counts
		inconsistent bool
		clamped      bool
	}{
		{"the issue's case: completion_tokens 0", `{"prompt_tokens":9,"completion_tokens":0}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
		{"fewer than the events", `{"prompt_tokens":9,"completion_tokens":1}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
		{"as many as the events", `{"prompt_tokens":9,"completion_tokens":2}`, fromUsage(2, 9), false, false},
		{"more than the events (several tokens per event)", `{"prompt_tokens":9,"completion_tokens":5}`, fromUsage(5, 9), false, false},
		{"negative", `{"prompt_tokens":9,"completion_tokens":-3}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
		{"absent output is not inconsistent", `{"prompt_tokens":9}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, false, false},
		{"a string", `{"prompt_tokens":9,"completion_tokens":"2"}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
		{"fractional", `{"prompt_tokens":9,"completion_tokens":2.5}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
		{"a whole float", `{"prompt_tokens":9.0,"completion_tokens":2e0}`, fromUsage(2, 9), false, false},
		{"prompt tokens 0 for a prompt that was sent", `{"prompt_tokens":0,"completion_tokens":2}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensFromUsage, prompt: 7, promptFrom: probe.TokensFromWorkload}, true, false},
		{"negative prompt tokens", `{"prompt_tokens":-1,"completion_tokens":2}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensFromUsage, prompt: 7, promptFrom: probe.TokensFromWorkload}, true, false},
		{"usage that is not an object", `"n/a"`, counted(4, 2), true, false},
		{"2^63 − 1 output tokens: clamped, not taken", `{"prompt_tokens":9,"completion_tokens":9223372036854775807}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, true},
		{"1e30 prompt tokens: clamped, not taken", `{"prompt_tokens":1e30,"completion_tokens":2}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensFromUsage, prompt: 7, promptFrom: probe.TokensFromWorkload}, true, true},
		{"1e400 output tokens", `{"prompt_tokens":9,"completion_tokens":1e400}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, true},
		{"2^31 − 1: not clamped, above max_tokens", `{"prompt_tokens":9,"completion_tokens":2147483647}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
		{"max_tokens (16) exactly", `{"prompt_tokens":9,"completion_tokens":16}`, fromUsage(16, 9), false, false},
		{"one above max_tokens", `{"prompt_tokens":9,"completion_tokens":17}`,
			counts{chunks: 4, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 9, promptFrom: probe.TokensFromUsage}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{
				{ms(100), content("Hi")}, {ms(50), content(" there")}, {ms(10), finish}, {ms(10), usageChunk(tt.usage) + done},
			}}, nil)
			judged{outcome: probe.Successful, ttft: ms(100), counts: tt.counts, inconsistent: tt.inconsistent,
				clamped: tt.clamped, verdict: conforming}.check(t, rec)
		})
	}
}

// TestCumulativeUsage: servers that repeat cumulative usage in every chunk
// are taken at their last report, never summed; a count that goes down is
// inconsistent (and a last report below the events seen is not taken).
func TestCumulativeUsage(t *testing.T) {
	tok := func(s string, n int) string {
		return data(`{"choices":[{"index":0,"delta":{"content":"` + s + `"}}],"usage":{"prompt_tokens":7,"completion_tokens":` + string(rune('0'+n)) + `}}`)
	}
	rec := runScript(t, &script{steps: []step{{ms(10), tok("a", 1)}, {ms(10), tok("b", 2)}, {ms(10), tok("c", 3)}, {0, finish + done}}}, nil)
	judged{outcome: probe.Successful, ttft: ms(10), verdict: conforming,
		counts: counts{chunks: 4, iterations: 3, output: 3, outputFrom: probe.TokensFromUsage, prompt: 7, promptFrom: probe.TokensFromUsage}}.check(t, rec)
	rec = runScript(t, &script{steps: []step{{ms(10), tok("a", 1)}, {ms(10), tok("b", 2)}, {ms(10), tok("c", 3)},
		{0, usageChunk(`{"prompt_tokens":7,"completion_tokens":2}`) + done}}}, nil)
	judged{outcome: probe.Successful, ttft: ms(10), verdict: conforming, inconsistent: true,
		counts: counts{chunks: 4, iterations: 3, output: 3, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromUsage}}.check(t, rec)
	rec = runScript(t, &script{steps: []step{{ms(10), tok("a", 1)}, {ms(10), tok("b", 5)}, {ms(10), tok("c", 4)}, {0, finish + done}}}, nil)
	judged{outcome: probe.Successful, ttft: ms(10), verdict: conforming, inconsistent: true,
		counts: counts{chunks: 4, iterations: 3, output: 4, outputFrom: probe.TokensFromUsage, prompt: 7, promptFrom: probe.TokensFromUsage}}.check(t, rec)
}

// TestContentShapes: content as an array of content parts, one part, the
// Assistants API's text value, a refusal and the completions API's text
// in the same shapes are visible token events: "Hi" at 300 ms is the
// first token and the first visible one. Parts without text (an image)
// are not. A content of another JSON type is a malformed chunk.
func TestContentShapes(t *testing.T) {
	visible := []struct{ name, chunk string }{
		{"content parts", chatDelta(`{"content":[{"type":"text","text":"Hi"}]}`)},
		{"text after an image part", chatDelta(`{"content":[{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"Hi"}]}`)},
		{"one content part", chatDelta(`{"content":{"type":"text","text":"Hi"}}`)},
		{"string parts", chatDelta(`{"content":["","Hi"]}`)},
		{"Assistants text value", chatDelta(`{"content":[{"index":0,"type":"text","text":{"value":"Hi","annotations":[]}}]}`)},
		{"refusal", chatDelta(`{"refusal":"I can't"}`)},
		{"completions text", data(`{"choices":[{"index":0,"text":"Hi"}]}`)},
		{"completions text as parts", data(`{"choices":[{"index":0,"text":[{"type":"text","text":"Hi"}]}]}`)},
	}
	for _, tt := range visible {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{steps: []step{{ms(100), role}, {ms(200), tt.chunk}, {ms(50), finish + done}}}, nil)
			judged{outcome: probe.Successful, ttft: ms(300), counts: counted(3, 1), verdict: conforming}.check(t, rec)
			if d, ok := rec.TTFOT(); !ok || d != ms(300) {
				t.Errorf("TTFOT %v %v, want 300ms", d, ok)
			}
		})
	}
	for _, c := range []string{`{"content":[]}`, `{"content":[{"type":"image_url","image_url":{"url":"x"}}]}`, `{"content":[{"type":"text","text":""}]}`} {
		rec := runScript(t, &script{steps: []step{{ms(100), role}, {ms(200), chatDelta(c)}, {ms(50), finish + done}}}, nil)
		judged{outcome: probe.Successful, ttft: -1, counts: counted(3, 0), verdict: emptyReply}.check(t, rec)
	}
	// A text of another JSON type is malformed wherever it sits: the
	// field, a part, a part's text or its value, in every API.
	for _, c := range []string{chatDelta(`{"content":42}`), chatDelta(`{"content":[{"type":"text","text":5}]}`),
		chatDelta(`{"content":[5]}`), chatDelta(`{"content":[["Hi"]]}`), chatDelta(`{"content":{"type":"text","text":true}}`),
		chatDelta(`{"content":[{"type":"text","text":{"value":5}}]}`), chatDelta(`{"refusal":5}`),
		chatDelta(`{"reasoning_content":[{"text":false}]}`), data(`{"choices":[{"index":0,"text":[{"text":5}]}]}`)} {
		rec := runScript(t, &script{steps: []step{{ms(100), c}}}, nil)
		judged{outcome: probe.Errored, errType: probe.ErrorProtocol, ttft: -1, counts: counted(1, 0), verdict: badProtocol,
			errText: "malformed stream chunk: text is not a string, a content part or an array of them"}.check(t, rec)
	}
	// Reasoning and tool calls are token events but not visible: TTFOT waits for content.
	rec := runScript(t, &script{steps: []step{{ms(100), chatDelta(`{"reasoning_content":[{"type":"text","text":"hm"}]}`)},
		{ms(100), chatDelta(`{"tool_calls":[{"index":0,"function":{"name":"f"}}]}`)}, {ms(100), chatDelta(`{"function_call":{"name":"g"}}`)},
		{ms(100), content("ok")}, {0, finish + done}}}, nil)
	judged{outcome: probe.Successful, ttft: ms(100), counts: counted(5, 4), verdict: conforming}.check(t, rec)
	if d, ok := rec.TTFOT(); !ok || d != ms(400) {
		t.Errorf("TTFOT %v %v, want 400ms", d, ok)
	}
}

// TestStreamLimits: a response with more events than MaxEvents (heartbeats
// count), or more bytes than MaxStreamBytes, is a protocol error at the
// event or byte past the limit.
func TestStreamLimits(t *testing.T) {
	rec := runScript(t, &script{steps: []step{{ms(10), content("a")}, {ms(10), "data:\n\ndata:\n\n"}, {ms(10), content("b")}}},
		func(c *Config) { c.MaxEvents = 3 })
	judged{outcome: probe.Errored, errType: probe.ErrorProtocol, errText: "more than 3 events in one stream",
		ttft: ms(10), counts: counted(1, 1), verdict: badProtocol}.check(t, rec)
	first := content("a")
	rec = runScript(t, &script{steps: []step{{ms(10), first}, {ms(10), content("b")}}},
		func(c *Config) { c.MaxStreamBytes = int64(len(first)) + 5 })
	judged{outcome: probe.Errored, errType: probe.ErrorProtocol,
		errText: "stream longer than " + strconv.Itoa(len(first)+5) + " bytes: the response is cut off there",
		ttft:    ms(10), counts: counted(1, 1), verdict: badProtocol}.check(t, rec)
	rec = runScript(t, &script{steps: []step{{ms(10), first + done}}}, func(c *Config) { c.MaxStreamBytes = int64(len(first + done)) })
	judged{outcome: probe.Successful, ttft: ms(10), counts: counted(1, 1), verdict: conforming}.check(t, rec)
}

// TestWholeResponses covers the same families in a non-streamed response,
// which has no TTFT: content parts, empty content, usage lower than what
// the reply shows, clamped usage and an error body with status 200.
func TestWholeResponses(t *testing.T) {
	msg := func(m, u string) string {
		return `{"choices":[{"index":0,"message":` + m + `,"finish_reason":"stop"}],"usage":` + u + `}`
	}
	whole := func(out int, from probe.TokenSource) counts {
		return counts{output: out, outputFrom: from, prompt: 9, promptFrom: probe.TokensFromUsage}
	}
	tests := []struct {
		name, api, body string
		j               judged
		seen            bool
	}{
		{"content parts", "", msg(`{"role":"assistant","content":[{"type":"text","text":"Hi"}]}`, `{"prompt_tokens":9,"completion_tokens":1}`),
			judged{outcome: probe.Successful, counts: whole(1, probe.TokensFromUsage), verdict: conforming}, true},
		{"the issue's case: empty content and 0 tokens", "", msg(`{"role":"assistant","content":""}`, `{"prompt_tokens":9,"completion_tokens":0}`),
			judged{outcome: probe.Successful, counts: whole(0, probe.TokensFromUsage), verdict: emptyReply}, false},
		{"null content and no usage", "", msg(`{"role":"assistant","content":null}`, `null`),
			judged{outcome: probe.Successful, counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: emptyReply}, false},
		{"tool call only", "", msg(`{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function"}]}`, `{"prompt_tokens":9,"completion_tokens":6}`),
			judged{outcome: probe.Successful, counts: whole(6, probe.TokensFromUsage), verdict: conforming}, true},
		{"usage 0 with content: unknown, flagged", "", msg(`{"role":"assistant","content":"Hi"}`, `{"prompt_tokens":9,"completion_tokens":0}`),
			judged{outcome: probe.Successful, counts: counts{prompt: 9, promptFrom: probe.TokensFromUsage}, inconsistent: true, verdict: conforming}, true},
		{"clamped usage: unknown, flagged", "", msg(`{"content":"Hi"}`, `{"prompt_tokens":9,"completion_tokens":9223372036854775807}`),
			judged{outcome: probe.Successful, counts: counts{prompt: 9, promptFrom: probe.TokensFromUsage}, inconsistent: true, clamped: true, verdict: conforming}, true},
		{"usage above max_tokens (16): unknown, flagged", "", msg(`{"content":"Hi"}`, `{"prompt_tokens":9,"completion_tokens":50}`),
			judged{outcome: probe.Successful, counts: counts{prompt: 9, promptFrom: probe.TokensFromUsage}, inconsistent: true, verdict: conforming}, true},
		{"empty content and usage 5: unknown, flagged", "", msg(`{"role":"assistant","content":""}`, `{"prompt_tokens":9,"completion_tokens":5}`),
			judged{outcome: probe.Successful, counts: counts{prompt: 9, promptFrom: probe.TokensFromUsage}, inconsistent: true, verdict: emptyReply}, false},
		{"completions empty text and usage 5", "completions", `{"choices":[{"text":""}],"usage":{"prompt_tokens":9,"completion_tokens":5}}`,
			judged{outcome: probe.Successful, counts: counts{prompt: 9, promptFrom: probe.TokensFromUsage}, inconsistent: true, verdict: emptyReply}, false},
		{"completions text parts", "completions", `{"choices":[{"text":["Hi"]}],"usage":{"prompt_tokens":9,"completion_tokens":1}}`,
			judged{outcome: probe.Successful, counts: whole(1, probe.TokensFromUsage), verdict: conforming}, true},
		{"completions empty text", "completions", `{"choices":[{"text":""}],"usage":{"prompt_tokens":9,"completion_tokens":0}}`,
			judged{outcome: probe.Successful, counts: whole(0, probe.TokensFromUsage), verdict: emptyReply}, false},
		{"a part whose text is a number", "", `{"choices":[{"message":{"content":[{"text":5}]}}]}`,
			judged{outcome: probe.Errored, errType: probe.ErrorProtocol,
				errText: `could not decode response: text is not a string, a content part or an array of them: {"choices":[{"message":{"content":[{"text":5}]}}]}`,
				counts:  counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: badProtocol}, false},
		{"error body with status 200 keeps its code", "", `{"error":{"message":"busy","code":"overloaded"}}`,
			judged{outcome: probe.Errored, errType: probe.ErrorProtocol, code: `"overloaded"`, errText: "error in response: busy",
				counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: badProtocol}, false},
		{"vLLM's top-level error with status 200", "", `{"object":"error","message":"bad","code":400}`,
			judged{outcome: probe.Errored, errType: probe.ErrorProtocol, code: "400", errText: "error in response: bad",
				counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload}, verdict: badProtocol}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{contentType: "application/json", steps: []step{{ms(200), tt.body}}}, func(c *Config) {
				c.Stream = false
				if tt.api != "" {
					c.API = tt.api
				}
			})
			tt.j.ttft = -1
			tt.j.check(t, rec)
			if rec.OutputSeen != tt.seen {
				t.Errorf("output seen %v, want %v", rec.OutputSeen, tt.seen)
			}
			if _, ok := rec.TPOT(); ok != (rec.OutputTokens > 0) || ok && !tt.seen {
				t.Errorf("TPOT defined %v with %d output tokens, output seen %v", ok, rec.OutputTokens, rec.OutputSeen)
			}
		})
	}
}

// TestHTTPErrorCodes: an error body's code is kept with its message.
func TestHTTPErrorCodes(t *testing.T) {
	rec := runScript(t, &script{status: 429, contentType: "application/json", steps: []step{
		{ms(20), `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`}}}, nil)
	judged{outcome: probe.Errored, errType: probe.ErrorHTTP429, code: `"rate_limit_exceeded"`, errText: "HTTP 429: Rate limit reached",
		ttft: -1, counts: counts{prompt: 7, promptFrom: probe.TokensFromWorkload},
		verdict: slo.Result{Verdict: slo.NonConforming, Reason: string(probe.ErrorHTTP429)}}.check(t, rec)
}
