package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// timings are a record's quantities, each -1 when undefined.
type timings struct {
	firstChunk, ttft, ttfot, itl, tpot, duration time.Duration
}

func timingsOf(r *probe.Record) timings {
	return timings{
		firstChunk: sinceStart(r.TimeToFirstChunk()),
		ttft:       sinceStart(r.TTFT()),
		ttfot:      sinceStart(r.TTFOT()),
		itl:        sinceStart(r.ITL()),
		tpot:       sinceStart(r.TPOT()),
		duration:   sinceStart(r.Duration()),
	}
}

// counts are a record's token counts and their sources.
type counts struct {
	chunks, iterations, output, prompt int
	outputFrom, promptFrom             probe.TokenSource
}

func countsOf(r *probe.Record) counts {
	return counts{
		chunks: r.ChunkGaps.Chunks(), iterations: r.Iterations,
		output: r.OutputTokens, outputFrom: r.OutputTokensFrom,
		prompt: r.PromptTokens, promptFrom: r.PromptTokensFrom,
	}
}

func chatDelta(d string) string {
	return data(`{"choices":[{"index":0,"delta":` + d + `,"finish_reason":null}]}`)
}
func content(s string) string { return chatDelta(`{"content":"` + s + `"}`) }

func TestStreamSuccess(t *testing.T) {
	tests := []struct {
		name   string
		api    string
		steps  []step
		counts counts
		times  timings
	}{
		{
			name: "llama.cpp shape: role, content, finish, usage-only chunk, DONE",
			steps: []step{
				{ms(100), chatDelta(`{"role":"assistant","content":null}`)},
				{ms(10), content("Hello")},
				{ms(20), content(" world")},
				{ms(30), content("!")},
				{ms(5), data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
				{ms(5), data(`{"choices":[],"usage":{"completion_tokens":3,"prompt_tokens":12,"total_tokens":15}}`) + done},
			},
			// Tokens at 110, 130, 160 ms; the usage chunk and DONE at 170 ms.
			counts: counts{chunks: 6, iterations: 3, output: 3, outputFrom: probe.TokensFromUsage, prompt: 12, promptFrom: probe.TokensFromUsage},
			times: timings{
				firstChunk: ms(100), ttft: ms(110), ttfot: ms(110),
				itl:      (ms(160) - ms(110)) / 2, // 25 ms
				tpot:     ms(160) / 3,             // 53.333333 ms
				duration: ms(170),
			},
		},
		{
			name: "vLLM shape: empty first content, finish with the last token, usage, DONE",
			steps: []step{
				{ms(80), chatDelta(`{"role":"assistant","content":""}`)},
				{ms(20), content("The")},
				{ms(10), content(" sky")},
				{ms(10), content(" is")},
				{ms(10), content(" blue")},
				{ms(10), data(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"."},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}`)},
				{ms(2), data(`{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":20,"total_tokens":25,"completion_tokens":5}}`)},
				{0, done},
			},
			// Tokens at 100, 110, 120, 130, 140 ms; DONE at 142 ms.
			counts: counts{chunks: 7, iterations: 5, output: 5, outputFrom: probe.TokensFromUsage, prompt: 20, promptFrom: probe.TokensFromUsage},
			times: timings{
				firstChunk: ms(80), ttft: ms(100), ttfot: ms(100),
				itl: (ms(140) - ms(100)) / 4, tpot: ms(140) / 5, duration: ms(142),
			},
		},
		{
			name: "reasoning before content makes TTFOT later than TTFT; no usage counts events",
			steps: []step{
				{ms(50), chatDelta(`{"role":"assistant"}`)},
				{ms(10), chatDelta(`{"reasoning_content":"Let"}`)},
				{ms(10), chatDelta(`{"reasoning":" me think"}`)},
				{ms(30), content("Answer")},
				{ms(10), data(`{"choices":[{"index":0,"delta":{"content":"."},"finish_reason":"stop"}]}`)},
				{0, done},
			},
			// Tokens at 60, 70, 100, 110 ms; the first visible one at 100 ms.
			// Prompt tokens come from the workload (7).
			counts: counts{chunks: 5, iterations: 4, output: 4, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			times: timings{
				firstChunk: ms(50), ttft: ms(60), ttfot: ms(100),
				itl: (ms(110) - ms(60)) / 3, tpot: ms(110) / 4, duration: ms(110),
			},
		},
		{
			name: "tool-call deltas are tokens but not visible output",
			steps: []step{
				{ms(40), chatDelta(`{"role":"assistant","content":null,"tool_calls":[]}`)},
				{ms(10), chatDelta(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]}`)},
				{ms(10), chatDelta(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\""}}]}`)},
				{ms(10), chatDelta(`{"tool_calls":[{"index":0,"function":{"arguments":":\"Paris\"}"}}]}`)},
				{ms(5), data(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)},
				{ms(5), data(`{"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":3}}`) + done},
			},
			// Tokens at 50, 60, 70 ms; no visible content, so TTFOT is undefined.
			counts: counts{chunks: 6, iterations: 3, output: 3, outputFrom: probe.TokensFromUsage, prompt: 30, promptFrom: probe.TokensFromUsage},
			times: timings{
				firstChunk: ms(40), ttft: ms(50), ttfot: -1,
				itl: (ms(70) - ms(50)) / 2, tpot: ms(70) / 3, duration: ms(80),
			},
		},
		{
			name: "cumulative usage in every chunk takes the last report, not the sum",
			steps: []step{
				{ms(30), data(`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`)},
				{ms(10), data(`{"choices":[{"index":0,"delta":{"content":"b"}}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`)},
				{ms(10), data(`{"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`)},
				{0, done},
			},
			// Sums would be 15 prompt and 6 output tokens; the last report says 5 and 3.
			counts: counts{chunks: 3, iterations: 3, output: 3, outputFrom: probe.TokensFromUsage, prompt: 5, promptFrom: probe.TokensFromUsage},
			times: timings{
				firstChunk: ms(30), ttft: ms(30), ttfot: ms(30),
				itl: (ms(50) - ms(30)) / 2, tpot: ms(50) / 3, duration: ms(50),
			},
		},
		{
			name: "usage larger than the event count wins (several tokens per chunk)",
			steps: []step{
				{ms(20), content("ab")},
				{ms(30), data(`{"choices":[{"index":0,"delta":{"content":"cd"},"finish_reason":"length"}]}`)},
				{ms(1), data(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}`) + done},
			},
			// Two events at 20 and 50 ms carrying 4 tokens: ITL = 30 ms / 3 = 10 ms.
			counts: counts{chunks: 3, iterations: 2, output: 4, outputFrom: probe.TokensFromUsage, prompt: 3, promptFrom: probe.TokensFromUsage},
			times: timings{
				firstChunk: ms(20), ttft: ms(20), ttfot: ms(20),
				itl: ms(10), tpot: ms(50) / 4, duration: ms(51),
			},
		},
		{
			name: "completions API: text chunks",
			api:  "completions",
			steps: []step{
				{ms(25), data(`{"object":"text_completion","choices":[{"index":0,"text":"Once","finish_reason":null}]}`)},
				{ms(5), data(`{"choices":[{"index":0,"text":" upon","finish_reason":null}]}`)},
				{ms(5), data(`{"choices":[{"index":0,"text":" a time","finish_reason":"length"}]}`)},
				{ms(1), data(`{"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":3}}`) + done},
			},
			counts: counts{chunks: 4, iterations: 3, output: 3, outputFrom: probe.TokensFromUsage, prompt: 4, promptFrom: probe.TokensFromUsage},
			times: timings{
				firstChunk: ms(25), ttft: ms(25), ttfot: ms(25),
				itl: (ms(35) - ms(25)) / 2, tpot: ms(35) / 3, duration: ms(36),
			},
		},
		{
			name: "keep-alives, comments, other event types and CRLF are not chunks",
			steps: []step{
				{ms(10), ": keep-alive\r\n\r\n"},
				{ms(10), "\r\n"},
				{ms(10), strings.ReplaceAll(content("x"), "\n", "\r\n")},
				{ms(10), ": ping\n\nevent: ping\ndata: not a chunk\n\n"},
				{ms(10), "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"y\"},\r\ndata: \"finish_reason\":\"stop\"}]}\r\n\r\n"},
				{0, "data: [DONE]"},
			},
			// Tokens at 30 and 50 ms; the second chunk's JSON spans two data lines.
			counts: counts{chunks: 2, iterations: 2, output: 2, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			times: timings{
				firstChunk: ms(30), ttft: ms(30), ttfot: ms(30),
				itl: ms(20), tpot: ms(50) / 2, duration: ms(50),
			},
		},
		{
			name: "a clean end after a finish reason without DONE succeeds",
			steps: []step{
				{ms(10), content("a")},
				{ms(10), data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
			},
			// The end is the end of the body, read at 20 ms.
			counts: counts{chunks: 2, iterations: 1, output: 1, outputFrom: probe.TokensCounted, prompt: 7, promptFrom: probe.TokensFromWorkload},
			times: timings{
				firstChunk: ms(10), ttft: ms(10), ttfot: ms(10),
				itl: -1, tpot: ms(10), duration: ms(20),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := runScript(t, &script{steps: tt.steps}, func(c *Config) {
				if tt.api != "" {
					c.API = tt.api
				}
			})
			if rec.Outcome != probe.Successful || rec.ErrorType != probe.ErrorNone || rec.Error != "" {
				t.Fatalf("outcome = %s/%s %q, want successful", rec.Outcome, rec.ErrorType, rec.Error)
			}
			if rec.HTTPStatus != 200 || !rec.RequestStart.Equal(t0) {
				t.Errorf("status = %d, start = %v; want 200 at %v", rec.HTTPStatus, rec.RequestStart, t0)
			}
			if got := countsOf(rec); got != tt.counts {
				t.Errorf("counts = %+v, want %+v", got, tt.counts)
			}
			if got := timingsOf(rec); got != tt.times {
				t.Errorf("timings = %+v, want %+v", got, tt.times)
			}
			if lat, ok := rec.Latency(); !ok || lat != tt.times.duration {
				t.Errorf("latency = %v, %v; want %v", lat, ok, tt.times.duration)
			}
		})
	}
}

func TestStreamRecordIdentity(t *testing.T) {
	// The record carries the request's identity and the backend's settings.
	rec := runScript(t, &script{steps: []step{{ms(1), content("a") + done}}}, nil)
	type identity struct {
		Target, API           string
		Seq                   uint64
		Stream                bool
		RequestedOutputTokens int
	}
	got := identity{rec.Target, rec.API, rec.Seq, rec.Stream, rec.RequestedOutputTokens}
	if want := (identity{"t1", "chat", 4, true, 16}); got != want {
		t.Fatalf("identity = %+v, want %+v", got, want)
	}
	if rec.ChunkGaps.Chunks() != 1 || !rec.FirstChunk.Equal(t0.Add(ms(1))) {
		t.Fatalf("%d chunks, the first at %v; want 1 at %v", rec.ChunkGaps.Chunks(), rec.FirstChunk, t0.Add(ms(1)))
	}
}
