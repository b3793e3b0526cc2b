package openai

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// streamBody returns a chat stream as the sim sends it: a role chunk, n
// content chunks, a finish chunk, a usage chunk and [DONE].
func streamBody(n int) []byte {
	var b bytes.Buffer
	head := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"sim-model","choices":`
	fmt.Fprintf(&b, "data: %s[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n", head)
	for i := range n {
		fmt.Fprintf(&b, "data: %s[{\"index\":0,\"delta\":{\"content\":\" word%d\"},\"finish_reason\":null}]}\n\n", head, i)
	}
	fmt.Fprintf(&b, "data: %s[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n", head)
	fmt.Fprintf(&b, "data: %s[],\"usage\":{\"prompt_tokens\":32,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", head, n, 32+n)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStream measures reading one streamed chat response of 64
// content events from memory (SSE framing, chunk decoding, timing and
// usage), as readStream does for every streamed request.
func BenchmarkStream(b *testing.B) {
	body := streamBody(64)
	be, err := New(Config{Target: "t1", BaseURL: "http://127.0.0.1:1/v1", API: "chat", Model: "m", Stream: true,
		Client: http.DefaultClient})
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(body)
	resp := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(r)}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(body)
		x := &exchange{req: &probe.Request{}, rec: be.newRecord(&probe.Request{})}
		if err := be.readStream(resp, x); err != nil || x.rec.Iterations != 64 {
			b.Fatalf("err %v, %d iterations", err, x.rec.Iterations)
		}
	}
}

// wholeBody returns a chat response as the sim sends it, n tokens long.
func wholeBody(n int) []byte {
	var content bytes.Buffer
	for i := range n {
		fmt.Fprintf(&content, " word%d", i)
	}
	return fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"sim-model",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"length"}],`+
		`"usage":{"prompt_tokens":32,"completion_tokens":%d,"total_tokens":%d}}`, content.String(), n, 32+n)
}

// BenchmarkWholeResponse measures reading one non-streamed chat response
// of 64 tokens from memory (reading the body, decoding it, usage), as
// readBody does for every request that is not streamed.
func BenchmarkWholeResponse(b *testing.B) {
	body := wholeBody(64)
	be, err := New(Config{Target: "t1", BaseURL: "http://127.0.0.1:1/v1", API: "chat", Model: "m",
		Client: http.DefaultClient})
	if err != nil {
		b.Fatal(err)
	}
	r := bytes.NewReader(body)
	resp := &http.Response{Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(r)}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(body)
		x := &exchange{req: &probe.Request{}, rec: be.newRecord(&probe.Request{})}
		if err := be.readBody(resp, x); err != nil || !x.rec.OutputSeen {
			b.Fatalf("err %v, output seen %v", err, x.rec.OutputSeen)
		}
	}
}
