package realtime_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/realtime"
	"github.com/llmprober/llmprober/slo"
)

// sendBound is how long after the server wrote a message the client may
// record it: the two run in one process on loopback, so anything longer
// means a fault, not a slow machine.
const sendBound = time.Second

// latencyOnly is an objective set without token quantities.
var latencyOnly = slo.Objective{Name: "latency", Attainment: 0.99, Period: 30 * 24 * time.Hour,
	Thresholds: []slo.Threshold{{Quantity: slo.Latency, Max: 5 * time.Second}}}

// timedServer writes msgs once the client's final commit has arrived and
// records the real-clock time just before each write.
type timedServer struct {
	mu   sync.Mutex
	sent []time.Time
}

func (ts *timedServer) start(t *testing.T, msgs []string) string {
	t.Helper()
	return serve(t, script{end: func(c *websocket.Conn, final <-chan struct{}) {
		<-final
		for _, m := range msgs {
			ts.mu.Lock()
			ts.sent = append(ts.sent, time.Now())
			ts.mu.Unlock()
			_ = c.WriteMessage(websocket.TextMessage, []byte(m))
		}
	}})
}

// sentAt returns when message i was written.
func (ts *timedServer) sentAt(i int) time.Time {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.sent[i]
}

// checkReceived fails unless got lies within sendBound after the server wrote message i.
func (ts *timedServer) checkReceived(t *testing.T, what string, got time.Time, i int) {
	t.Helper()
	if d := got.Sub(ts.sentAt(i)); d < 0 || d > sendBound {
		t.Errorf("%s recorded %v after the server wrote it, want within [0, %v]", what, d, sendBound)
	}
}

// tokens are a record's token counts, sources and usage flags.
type tokens struct {
	iterations, output, prompt int
	outputFrom, promptFrom     probe.TokenSource
	inconsistent, clamped      bool
}

func tokensOf(r *probe.Record) tokens {
	return tokens{r.Iterations, r.OutputTokens, r.PromptTokens, r.OutputTokensFrom, r.PromptTokensFrom, r.UsageInconsistent, r.TokensClamped}
}

// TestRealtimeReplies covers empty and whole-at-once transcripts and
// usage reports that disagree with the deltas: outcome, first token
// within sendBound of the server's write of the message that carried it
// (the message index; −1 when there is none), token counts, and the
// verdict under an objective set of latency only.
func TestRealtimeReplies(t *testing.T) {
	done := func(rest string) string { return `{"type":"transcription.done"` + rest + `}` }
	ok := slo.Result{Verdict: slo.Conforming}
	empty := slo.Result{Verdict: slo.NonConforming, Reason: slo.ReasonInsufficientOutput}
	tests := []struct {
		name    string
		msgs    []string
		first   int
		tokens  tokens
		verdict slo.Result
	}{
		{"empty done", []string{done(`,"text":"","usage":{"prompt_tokens":30,"completion_tokens":0}`)}, -1,
			tokens{prompt: 30, promptFrom: probe.TokensFromUsage, outputFrom: probe.TokensFromUsage}, empty},
		{"empty deltas, done without text", []string{`{"type":"transcription.delta","delta":""}`, done(``)}, -1,
			tokens{outputFrom: probe.TokensCounted}, empty},
		{"done with a transcript and no deltas", []string{done(`,"text":"hello"`)}, 0,
			tokens{iterations: 1, output: 1, outputFrom: probe.TokensCounted}, ok},
		{"OpenAI completed with a transcript and no deltas",
			[]string{`{"type":"conversation.item.input_audio_transcription.completed","item_id":"i","transcript":"hello","usage":{"input_tokens":30,"output_tokens":2}}`}, 0,
			tokens{iterations: 1, output: 2, outputFrom: probe.TokensFromUsage, prompt: 30, promptFrom: probe.TokensFromUsage}, ok},
		{"usage lower than the deltas", []string{delta, delta, delta, done(`,"text":"hi hi hi","usage":{"prompt_tokens":30,"completion_tokens":1}`)}, 0,
			tokens{iterations: 3, output: 3, outputFrom: probe.TokensCounted, prompt: 30, promptFrom: probe.TokensFromUsage, inconsistent: true}, ok},
		{"no prompt tokens for the audio sent", []string{delta, done(`,"usage":{"prompt_tokens":0,"completion_tokens":1}`)}, 0,
			tokens{iterations: 1, output: 1, outputFrom: probe.TokensFromUsage, inconsistent: true}, ok},
		{"usage of 2^63 − 1 tokens cannot be true", []string{delta, done(`,"usage":{"input_tokens":9223372036854775807,"output_tokens":1e30}`)}, 0,
			tokens{iterations: 1, output: 1, outputFrom: probe.TokensCounted, inconsistent: true, clamped: true}, ok},
		{"usage claiming tokens that never came", []string{done(`,"text":"","usage":{"prompt_tokens":30,"completion_tokens":4}`)}, -1,
			tokens{outputFrom: probe.TokensCounted, prompt: 30, promptFrom: probe.TokensFromUsage, inconsistent: true}, empty},
		{"deltas as content parts, as over HTTP", []string{`{"type":"transcription.delta","delta":[{"type":"text","text":"Hi"}]}`,
			`{"type":"transcription.delta","delta":{"type":"text","text":""}}`, `{"type":"transcription.delta","delta":["", " there"]}`, done(`,"text":"Hi there"`)}, 0,
			tokens{iterations: 2, output: 2, outputFrom: probe.TokensCounted}, ok},
		{"a transcript as content parts and no deltas", []string{done(`,"text":[{"type":"text","text":"hello"}]`)}, 0,
			tokens{iterations: 1, output: 1, outputFrom: probe.TokensCounted}, ok},
		{"messages that begin with a byte order mark", []string{"\xef\xbb\xbf" + delta, "\xef\xbb\xbf" + done(`,"text":"hi"`)}, 0,
			tokens{iterations: 1, output: 1, outputFrom: probe.TokensCounted}, ok},
		{"usage that is not an object", []string{delta, done(`,"usage":[1]`)}, 0,
			tokens{iterations: 1, output: 1, outputFrom: probe.TokensCounted, inconsistent: true}, ok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts timedServer
			rec := do(newBackend(t, realtime.Config{BaseURL: ts.start(t, tt.msgs), Timeout: 5 * time.Second}))
			checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
			if _, defined := rec.TTFT(); defined != (tt.first >= 0) {
				t.Fatalf("TTFT defined %v, want %v", defined, tt.first >= 0)
			}
			if tt.first >= 0 {
				ts.checkReceived(t, "first token", rec.FirstToken, tt.first)
			}
			if got := tokensOf(rec); got != tt.tokens {
				t.Errorf("tokens %+v, want %+v", got, tt.tokens)
			}
			if _, defined := rec.TPOT(); defined != (tt.first >= 0) {
				t.Errorf("TPOT defined %v, want %v", defined, tt.first >= 0)
			}
			if got := latencyOnly.Evaluate(rec); got != tt.verdict {
				t.Errorf("verdict %+v, want %+v", got, tt.verdict)
			}
		})
	}
}

// TestRealtimeErrorCodes: every error event keeps its code in the record,
// in vLLM's spelling (beside the error string) and OpenAI's (inside the
// error object), after a delta whose receive time is the first token.
func TestRealtimeErrorCodes(t *testing.T) {
	tests := []struct{ name, msg, code, text string }{
		{"vLLM", `{"type":"error","error":"bad audio","code":"invalid_audio"}`, `"invalid_audio"`, "server error event: bad audio"},
		{"vLLM numeric code", `{"type":"error","error":"engine dead","code":500}`, "500", "server error event: engine dead"},
		{"OpenAI", `{"type":"error","event_id":"e","error":{"type":"invalid_request_error","code":"invalid_value","message":"bad","param":null}}`,
			`"invalid_value"`, "server error event: bad"},
		{"OpenAI transcription failed", `{"type":"conversation.item.input_audio_transcription.failed","item_id":"i","content_index":0,"error":{"type":"transcription_error","code":"audio_unintelligible","message":"audio unintelligible"}}`,
			`"audio_unintelligible"`, "transcription failed: audio unintelligible"},
		{"no code", `{"type":"error","error":"x"}`, "", "server error event: x"},
		{"a code that is an object", `{"type":"error","error":"x","code":{"n":1}}`, `{"n":1}`, "server error event: x"},
		{"a code of the string \"500\"", `{"type":"error","error":{"message":"x","code":"500"}}`, `"500"`, "server error event: x"},
		{"nothing but the type", `{"type":"error"}`, "", "server error event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts timedServer
			rec := do(newBackend(t, realtime.Config{BaseURL: ts.start(t, []string{delta, tt.msg}), Timeout: 5 * time.Second}))
			checkOutcome(t, rec, probe.Errored, probe.ErrorStream)
			if rec.ErrorCode.String() != tt.code || rec.Error != tt.text {
				t.Errorf("code %s, error %q; want %s, %q", rec.ErrorCode, rec.Error, tt.code, tt.text)
			}
			ts.checkReceived(t, "first token", rec.FirstToken, 0)
			want := slo.Result{Verdict: slo.NonConforming, Reason: string(probe.ErrorStream)}
			if got := latencyOnly.Evaluate(rec); got != want {
				t.Errorf("verdict %+v, want %+v", got, want)
			}
		})
	}
}

// TestRealtimeErrorMembers: an event of any type with an error member
// that is set reports an error, as a chunk with one does over HTTP; one
// that is not set (null, false, 0, "", [], {}) reports nothing.
func TestRealtimeErrorMembers(t *testing.T) {
	for _, tt := range []struct{ name, msg, code, text string }{
		{"the tester's case: a done event with an error", `{"type":"transcription.done","text":"a","error":{"message":"hidden failure","code":9}}`,
			"9", "transcription.done event with an error: hidden failure"},
		{"a delta with an error string", `{"type":"transcription.delta","delta":"b","error":"cut off"}`, "", "transcription.delta event with an error: cut off"},
		{"an informational event with an error", `{"type":"session.updated","error":true,"code":"e1"}`, `"e1"`, "session.updated event with an error: true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ts timedServer
			rec := do(newBackend(t, realtime.Config{BaseURL: ts.start(t, []string{delta, tt.msg}), Timeout: 5 * time.Second}))
			checkOutcome(t, rec, probe.Errored, probe.ErrorStream)
			if rec.ErrorCode.String() != tt.code || rec.Error != tt.text || rec.Iterations != 1 {
				t.Errorf("code %s, error %q, %d tokens; want %s, %q, 1", rec.ErrorCode, rec.Error, rec.Iterations, tt.code, tt.text)
			}
		})
	}
	for _, v := range []string{`null`, `false`, `0`, `""`, `[]`, `{}`} {
		t.Run("not set: "+v, func(t *testing.T) {
			var ts timedServer
			msgs := []string{`{"type":"transcription.delta","delta":"a","error":` + v + `}`, `{"type":"transcription.done","text":"a","error":` + v + `}`}
			rec := do(newBackend(t, realtime.Config{BaseURL: ts.start(t, msgs), Timeout: 5 * time.Second}))
			checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
			if rec.Iterations != 1 {
				t.Errorf("%d tokens, want 1", rec.Iterations)
			}
			ts.checkReceived(t, "first token", rec.FirstToken, 0)
		})
	}
}

// TestRealtimeLimits: more server events than MaxEvents, or more bytes
// than MaxBytes, is a protocol error.
func TestRealtimeLimits(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  func(*realtime.Config)
		text string
	}{
		// session.created is the first of the events.
		{"events", func(c *realtime.Config) { c.MaxEvents = 3 }, "more than 3 server events in one request"},
		{"bytes", func(c *realtime.Config) { c.MaxBytes = 100 }, "server events longer than 100 bytes together in one request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var ts timedServer
			cfg := realtime.Config{BaseURL: ts.start(t, []string{delta, delta, delta, delta}), Timeout: 5 * time.Second}
			tt.cfg(&cfg)
			rec := do(newBackend(t, cfg))
			checkOutcome(t, rec, probe.Errored, probe.ErrorProtocol)
			if rec.Error != tt.text {
				t.Errorf("error %q, want %q", rec.Error, tt.text)
			}
		})
	}
}

// TestRealtimeMessageLimit: a server message longer than MaxMessageBytes
// is a protocol error naming the limit, as the HTTP backend's event limit
// is; one of exactly the limit is read.
func TestRealtimeMessageLimit(t *testing.T) {
	long := `{"type":"transcription.delta","delta":"` + strings.Repeat("x", 100) + `"}`
	limit := int64(len(long))
	var ts timedServer
	rec := do(newBackend(t, realtime.Config{BaseURL: ts.start(t, []string{long, `{"type":"transcription.done","text":"x"}`}),
		Timeout: 5 * time.Second, MaxMessageBytes: limit}))
	checkOutcome(t, rec, probe.Successful, probe.ErrorNone)
	var ts2 timedServer
	rec = do(newBackend(t, realtime.Config{BaseURL: ts2.start(t, []string{long}), Timeout: 5 * time.Second, MaxMessageBytes: limit - 1}))
	checkOutcome(t, rec, probe.Errored, probe.ErrorProtocol)
	if want := fmt.Sprintf("server message too large: longer than %d bytes", limit-1); rec.Error != want {
		t.Errorf("error %q, want %q", rec.Error, want)
	}
}

// TestHandshakeErrorCode: a refused handshake keeps its body's code.
func TestHandshakeErrorCode(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`))
	}))
	defer srv.Close()
	rec := do(newBackend(t, realtime.Config{BaseURL: srv.URL + "/v1", Timeout: 5 * time.Second}))
	checkOutcome(t, rec, probe.Errored, probe.ErrorHTTP429)
	if rec.ErrorCode.String() != `"rate_limit_exceeded"` || rec.Error != "handshake refused: HTTP 429: slow down" {
		t.Errorf("code %s, error %q", rec.ErrorCode, rec.Error)
	}
}

// plantedKey is the API key the redaction test plants in a handshake answer.
const plantedKey = "sk-PLANTED-0123456789abcdef"

// TestHandshakeRedactionAroundTheCut plants the key at every offset around
// the 4096-byte read of a refused handshake's body, padded with white
// space (which the record's text collapses) and with text: no part of it
// may reach the record.
func TestHandshakeRedactionAroundTheCut(t *testing.T) {
	const cut = 4096
	for _, pad := range []string{" ", "x"} {
		var bodies []string
		for off := cut - len(plantedKey) - 2; off <= cut+2; off++ {
			bodies = append(bodies, strings.Repeat(pad, off)+plantedKey+strings.Repeat(pad, 100))
		}
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			body := bodies[0]
			bodies = bodies[1:]
			mu.Unlock()
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(body))
		}))
		b := newBackend(t, realtime.Config{BaseURL: srv.URL + "/v1", Secrets: []string{plantedKey}, Timeout: 5 * time.Second})
		for off := cut - len(plantedKey) - 2; off <= cut+2; off++ {
			rec := do(b)
			for k := len(plantedKey); k >= 3; k-- {
				if strings.Contains(rec.Error, plantedKey[:k]) {
					t.Errorf("pad %q, key at %d: error %q leaks %q", pad, off, rec.Error, plantedKey[:k])
					break
				}
			}
		}
		srv.Close()
	}
}
