package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// mapBody is the request body as encoding a map of its members gives it:
// the oracle the template must reproduce byte for byte.
func mapBody(cfg Config, req *probe.Request) []byte {
	m := map[string]any{"stream": cfg.Stream}
	if cfg.Model != "" {
		m["model"] = cfg.Model
	}
	if cfg.API == apiChat {
		msgs := req.Messages
		if msgs == nil {
			msgs = []probe.Message{}
		}
		m["messages"] = msgs
	} else {
		m["prompt"] = prompt(req.Messages)
	}
	if cfg.Stream {
		m["stream_options"] = map[string]bool{"include_usage": true}
	}
	if req.MaxOutputTokens > 0 {
		for _, f := range cfg.MaxTokensFields {
			m[f] = req.MaxOutputTokens
		}
	}
	if cfg.IgnoreEOS {
		m["ignore_eos"] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestBodyTemplateAsMap holds every combination of settings and awkward
// texts (HTML characters, quotes, control characters, U+2028, invalid
// UTF-8, empty and nil messages) to the map encoding.
func TestBodyTemplateAsMap(t *testing.T) {
	texts := [][]probe.Message{
		nil, {},
		{{Role: "user", Content: "probe 0123abcd the of and"}},
		{{Role: "system", Content: "be <brief> & \"exact\""}, {Role: "user", Content: "tab\there\nline\u2028sep\u2029 \x01\x7f"}},
		{{Role: "user", Content: "bad \xff\xfe utf-8 \\ back"}},
	}
	fieldSets := [][]string{nil, {"max_tokens"}, {"max_completion_tokens"}, {"max_completion_tokens", "max_tokens"}, {"max_tokens", "max_tokens"}}
	n := 0
	for _, api := range []string{apiChat, apiCompletions} {
		for _, stream := range []bool{false, true} {
			for _, eos := range []bool{false, true} {
				for _, model := range []string{"", "sim-model", "a<b>&\"c\""} {
					for _, fields := range fieldSets {
						for _, max := range []int{0, 1, 64, 1 << 40} {
							for _, msgs := range texts {
								cfg := Config{Target: "t", BaseURL: "http://127.0.0.1:1/v1", API: api, Stream: stream, IgnoreEOS: eos,
									Model: model, MaxTokensFields: fields, Client: http.DefaultClient}
								be, err := New(cfg)
								if err != nil {
									t.Fatal(err)
								}
								req := &probe.Request{Messages: msgs, MaxOutputTokens: max}
								got, err := be.tmpl.body(req)
								if err != nil {
									t.Fatal(err)
								}
								if want := mapBody(be.cfg, req); !bytes.Equal(got, want) {
									t.Errorf("%s:\n got %s\nwant %s", fmt.Sprint(api, stream, eos, model, fields, max), got, want)
								}
								n++
							}
						}
					}
				}
			}
		}
	}
	if n != 2*2*2*3*5*4*5 {
		t.Fatalf("%d cases", n)
	}
}
