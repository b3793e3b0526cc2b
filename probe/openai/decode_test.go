package openai

import (
	"errors"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/sse"
)

// chunkSeeds are chunks of the shapes servers send and the tests read,
// and shapes that only encoding/json's rules decide: names in another
// case, escaped or folded (K is U+212A, which folds to k), members that
// come twice, values of the wrong type, text fields of every shape,
// errors at every place, odd JSON.
var chunkSeeds = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"sim-model","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"sim-model","choices":[{"index":0,"delta":{"content":" word7"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"sim-model","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"sim-model","choices":[],"usage":{"prompt_tokens":32,"completion_tokens":64,"total_tokens":96}}`,
	`{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
	`{"object":"text_completion","choices":[{"index":0,"text":"Once","finish_reason":null}]}`,
	`{"choices":[{"delta":{"content":42}}]}`, `{"choices":[{"delta":{"content":["","Hi"]}}]}`,
	`{"choices":[{"delta":{"content":[5]}}]}`, `{"choices":[{"delta":{"content":[["Hi"]]}}]}`,
	`{"choices":[{"delta":{"content":[{"index":0,"type":"text","text":{"value":"Hi","annotations":[]}}]}}]}`,
	`{"choices":[{"delta":{"content":[{"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"Hi"}]}}]}`,
	`{"choices":[{"delta":{"content":[{"type":"text","text":5}]}}]}`, `{"choices":[{"delta":{"content":[{"type":"text","text":{"value":5}}]}}]}`,
	`{"choices":[{"delta":{"content":{"type":"text","text":"Hi"}}}]}`, `{"choices":[{"delta":{"content":{"type":"text","text":true}}}]}`,
	`{"choices":[{"delta":{"function_call":{"name":"g"}}}]}`, `{"choices":[{"delta":{"function_call":null}}]}`,
	`{"choices":[{"delta":{"reasoning":" me think"}}]}`, `{"choices":[{"delta":{"reasoning_content":[{"text":false}]}}]}`,
	`{"choices":[{"delta":{"reasoning_content":[{"type":"text","text":"hm"}]}}]}`, `{"choices":[{"delta":{"refusal":5}}]}`,
	`{"choices":[{"delta":{"role":"assistant","content":null,"tool_calls":[]}}]}`, `{"choices":[{"delta":{"tool_calls":[ ]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\""}}]}}]}`, `{"choices":[{"delta":{"tool_calls":{}}}]}`,
	`{"choices":[],"usage":{"completion_tokens":9223372036854775807,"prompt_tokens":-1}}`, `{"choices":[],"usage":{"completion_tokens":1e30,"prompt_tokens":2.0}}`,
	`{"choices":[],"usage":{"completion_tokens":"3","prompt_tokens":{}}}`, `{"choices":[],"usage":[]}`, `{"choices":[{"text":["a"]}],"usage":"n/a"}`,
	`{"choices":[{"delta":{"content":"a"},"error":{}}],"error":false}`, `{"choices":[{"delta":{"content":"a"},"error":[]}],"error":0.0}`,
	`{"choices":[{"finish_reason":"error"}]}`, `{"choices":[{"finish_reason":"\u0065rror"}]}`, `{"choices":[{"finish_reason":5}]}`,
	`{"choices":[{"error":{"message":"first"}},{"error":"second"}]}`, `{"choices":[{"finish_reason":"error"},{"error":"second"}],"error":"top"}`,
	`{"choices":[{"delta":{"content":"b"}}]`, `{"choices":[{"text":null,"finish_reason":"stop"}]}`, `{"choices":[{"text":""}]}`,
	`{"error":"Request failed during generation","error_type":"generation"}`,
	`{"error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}`,
	`{"object":"error","message":"out of memory","type":"InternalServerError","param":null,"code":500}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `{"type":"\u0065rror","message":"m","code":"c"}`,
	`{"message":"m","code":{"k":"v"}}`, `{"message":""}`, `{"message":5}`, `{"detail":[1]}`, `{"detail":[]}`, `{"choices":null,"detail":"x"}`,
	`{"choices":[],"message":"not bare"}`, `{}`, `null`, ` {} `, `[]`, `"x"`, `5`, ``, `{}{}`, `{} x`, `{"a":1,}`, `{"a" 1}`,
	`{"CHOICES":[{"Delta":{"Content":"x"}}],"Usage":{"Prompt_Tokens":3}}`, `{"\u0063hoices":[{"delta":{"content":"x"}}]}`,
	`{"choices":[{"delta":{"content":"x"}}],"choices":[{}]}`, `{"choices":[],"choices":null,"message":"m"}`,
	`{"choices":[{"delta":{"content":"","content":"x"}}]}`, `{"choices":[{"delta":{"content":[{"text":5,"text":"a"}]}}]}`,
	"{\"usage\":{\"prompt_to\u212aens\":3}}", "{\"choices\":[{\"delta\":{\"content\":\"\xff\"}}]}", `{"choices":[{"delta":{"content":"\ud800"}}]}`,
	"{\"x\xff\":1,\"choices\":[]}", `{"choices":[{"delta":{"content":"a\u0000b"}}]}`, "{\"choices\":[{\"delta\":{\"content\":\"a\x01\"}}]}",
	`{"choices":[null,{"delta":null,"message":{"content":"m"}}]}`, `{"choices":[5]}`, `{"choices":{}}`, `{"choices":[{"delta":5}]}`,
	`{"nested":[[[[{"a":[1,2,{"b":null}]}]]]],"choices":[{"text":"x"}]}`, `{"n":-0.5e-3,"m":1E+2,"choices":[]}`, `{"n":01}`,
}

// decodeSeeds returns the chunk seeds and every event's data and every
// whole body in the response fuzzer's seeds.
func decodeSeeds() []string {
	seeds := append([]string(nil), chunkSeeds...)
	for _, body := range responseSeeds {
		seeds = append(seeds, body)
		r := sse.NewReader(strings.NewReader(body), 0)
		for {
			ev, err := r.Next()
			if err != nil {
				break
			}
			seeds = append(seeds, ev.Data)
		}
	}
	return seeds
}

// FuzzDecodeChunk holds decodeChunk to encoding/json: whatever the walk
// reads must be what decoding into chunk reads, and what encoding/json
// rejects the walk must not accept.
func FuzzDecodeChunk(f *testing.F) {
	for _, s := range decodeSeeds() {
		f.Add([]byte(s))
	}
	// Arrays at and past the bound of kept items, read by the walk and,
	// with an escaped name, by encoding/json.
	for _, n := range []int{probe.MaxResponseItems, probe.MaxResponseItems + 1} {
		list := strings.TrimSuffix(strings.Repeat("{},", n), ",")
		f.Add([]byte(`{"choices":[` + list + `]}`))
		f.Add([]byte(`{"ch\u006fices":[` + list + `]}`))
		f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[` + list + `]}}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = probe.TrimBOM(data)
		want, wantErr := decodeSlow(data)
		if want.choices > probe.MaxResponseItems {
			t.Fatalf("%d choices decoded, more than the bound %d", want.choices, probe.MaxResponseItems)
		}
		var got decoded
		if new(walker).chunk(data, &got) {
			if wantErr != nil {
				t.Fatalf("%q: the walk accepts it, encoding/json fails: %v", data, wantErr)
			}
			if got != want {
				t.Fatalf("%q: the walk reads\n%+v\nencoding/json\n%+v", data, got, want)
			}
		}
		got, err := decodeChunk(data)
		if got != want || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%q: decodeChunk = %+v, %v; want %+v, %v", data, got, err, want, wantErr)
		}
	})
}

// TestWalkReadsCommonShapes checks that the chunks servers send, errors
// included, are read by the walk, not handed to encoding/json.
func TestWalkReadsCommonShapes(t *testing.T) {
	for _, s := range append(chunkSeeds[:6:6],
		`{"choices":[{"delta":{"content":[{"type":"text","text":"Hi"}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"f"}}]}}]}`,
		`{"choices":[{"delta":{"content":"a"},"error":{}}],"error":false}`,
		`{"error":{"message":"CUDA out of memory","type":"InternalServerError","code":500}}`,
		`{"object":"error","message":"out of memory","type":"InternalServerError","param":null,"code":500}`,
		`{"CHOICES":[{"Delta":{"Content":"x"}}],"Usage":{"Prompt_Tokens":3}}`,
	) {
		var d decoded
		if !new(walker).chunk([]byte(s), &d) {
			t.Errorf("%s: not read by the walk", s)
		}
	}
}

// TestWalkAllocs checks that the chunks of a stream (role, content,
// finish and usage chunks) and a whole response are read by a walker
// without any allocation (decodeChunk takes the walker from a pool, which
// the race detector empties at random).
func TestWalkAllocs(t *testing.T) {
	w := new(walker)
	for _, s := range chunkSeeds[:5] {
		data := []byte(s)
		allocs := testing.AllocsPerRun(100, func() {
			var d decoded
			if !w.chunk(data, &d) {
				t.Fatal("not read by the walk")
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations, want 0", s, allocs)
		}
	}
}

// TestDecodeChunkExamples checks what decodeChunk reads of chunks against
// hand-written values.
func TestDecodeChunkExamples(t *testing.T) {
	given := func(p, c int) usageReport {
		return usageReport{state: usageGiven, prompt: probe.TokenCount{N: p, State: probe.CountValid}, completion: probe.TokenCount{N: c, State: probe.CountValid}}
	}
	tests := []struct {
		in   string
		want decoded
	}{
		{chunkSeeds[0], decoded{choices: 1, listed: true}},
		{chunkSeeds[1], decoded{choices: 1, listed: true, token: true, visible: true}},
		{chunkSeeds[2], decoded{choices: 1, listed: true, finished: true}},
		{chunkSeeds[3], decoded{listed: true, usage: given(32, 64)}},
		{`{"CHOICES":[{"Delta":{"Reasoning":"x"}}],"Usage":{"Prompt_Tokens":3}}`,
			decoded{choices: 1, listed: true, token: true, usage: usageReport{state: usageGiven, prompt: probe.TokenCount{N: 3, State: probe.CountValid}}}},
		{`{"choices":[null,{"delta":{"tool_calls":[{}]}}],"usage":"n/a"}`, decoded{choices: 2, listed: true, token: true, usage: usageReport{state: usageMalformed}}},
		{`{"choices":[{"finish_reason":"error"},{"error":"second"}]}`,
			decoded{choices: 2, listed: true, finished: true, failed: true, err: probe.ServerError{Message: `finish_reason "error"`}}},
		{`{"choices":[{"error":{"message":"m","code":7}}],"detail":"not bare"}`,
			decoded{choices: 1, listed: true, failed: true, err: probe.ServerError{Message: "m", Code: probe.ErrorCode{Text: "7", Kind: probe.CodeNumber}}}},
		{`{"detail":"busy"}`, decoded{failed: true, err: probe.ServerError{Message: "busy"}}},
		{`null`, decoded{}},
	}
	for _, tt := range tests {
		got, err := decodeChunk([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{`{"choices":[{"delta":{"content":5}}]}`, `{"choices":[}`, `{} {}`, `[1]`} {
		if _, err := decodeChunk([]byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	_, err := decodeChunk([]byte(`{"choices":[{"delta":{"content":[{"text":{"value":5}}]}}]}`))
	if !errors.Is(err, probe.ErrText) {
		t.Errorf("text of a number: %v, want %v", err, probe.ErrText)
	}
}
