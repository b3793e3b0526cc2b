package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// start runs a server for one test and closes it, and the client's idle
// connections, at the end.
func start(t *testing.T, cfg Config) (*Server, *http.Client) {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		s.Close()
		tr.CloseIdleConnections()
	})
	return s, &http.Client{Transport: tr}
}

// post sends body as JSON to path, with the fault header when fault is set.
func post(ctx context.Context, t *testing.T, c *http.Client, url, body, fault string) *http.Response {
	t.Helper()
	resp, err := postErr(ctx, c, url, body, fault)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

func postErr(ctx context.Context, c *http.Client, url, body, fault string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("could not make request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if fault != "" {
		req.Header.Set(FaultHeader, fault)
	}
	return c.Do(req)
}

// sse is a stream read by the test's own parser.
type sse struct {
	data []string    // the data of each event, in order
	at   []time.Time // when each event was read
	err  error       // the read error that ended the stream; nil on a clean end
}

// readSSE reads "data: ..." events until the body ends. onEvent, if not nil,
// sees each event's index and data as it arrives.
func readSSE(r io.Reader, onEvent func(i int, data string)) sse {
	var out sse
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "data: "); ok && err == nil {
			out.data = append(out.data, data)
			out.at = append(out.at, time.Now())
			if onEvent != nil {
				onEvent(len(out.data)-1, data)
			}
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			out.err = err
			return out
		}
	}
}

// testChunk decodes any chunk of either API.
type testChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
		Code    int    `json:"code"`
	} `json:"error"`
}

// shape names each event: "role", "reasoning", "content", "text",
// "finish <reason>", "usage <prompt>/<completion>/<total>", "error <code>",
// "malformed", "done" or "other". It fails the test when a token is not one
// word or a chunk has another object, model or id than want.
func shape(t *testing.T, events []string, object, model string) []string {
	t.Helper()
	out := make([]string, 0, len(events))
	for _, e := range events {
		kind, c := classify(e)
		out = append(out, kind)
		if c == nil || c.Error != nil {
			continue
		}
		if c.Object != object || c.Model != model || c.ID == "" || c.Created == 0 {
			t.Errorf("chunk %s: object %q model %q id %q created %d, want object %q model %q",
				e, c.Object, c.Model, c.ID, c.Created, object, model)
		}
	}
	return out
}

func classify(e string) (string, *testChunk) {
	if e == "[DONE]" {
		return "done", nil
	}
	var c testChunk
	if err := json.Unmarshal([]byte(e), &c); err != nil {
		return "malformed", nil
	}
	switch {
	case c.Error != nil:
		return fmt.Sprintf("error %d", c.Error.Code), &c
	case len(c.Choices) == 0 && c.Usage != nil:
		return fmt.Sprintf("usage %d/%d/%d", c.Usage.PromptTokens, c.Usage.CompletionTokens, c.Usage.TotalTokens), &c
	case len(c.Choices) != 1:
		return "other", &c
	}
	ch := c.Choices[0]
	d := ch.Delta
	switch {
	case ch.FinishReason != nil:
		return "finish " + *ch.FinishReason, &c
	case d.Role != nil && *d.Role == "assistant" && d.Content != nil && *d.Content == "":
		return "role", &c
	case d.ReasoningContent != nil && oneWord(*d.ReasoningContent):
		return "reasoning", &c
	case d.Content != nil && oneWord(*d.Content):
		return "content", &c
	case ch.Text != nil && oneWord(*ch.Text):
		return "text", &c
	}
	return "other", &c
}

func oneWord(s string) bool { return len(strings.Fields(s)) == 1 }

// seq builds an expected shape: strings as they are, and rep values expanded.
func seq(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case rep:
			for range v.n {
				out = append(out, v.kind)
			}
		}
	}
	return out
}

type rep struct {
	kind string
	n    int
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// logOf waits until the log holds at least n entries and returns it.
func logOf(t *testing.T, s *Server, n int) []RequestLog {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d log entries", n), func() bool { return len(s.Requests()) >= n })
	return s.Requests()
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := b.ReadFrom(r); err != nil {
		t.Fatalf("read body: %v", err)
	}
	return b.Bytes()
}

// closeBody closes a response body; a failed close is no finding of a test.
func closeBody(resp *http.Response) { _ = resp.Body.Close() }
