package exporter

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/openai"
	"github.com/llmprober/llmprober/slo/window"
)

// TestClampedUsageExportsAgree: a server reporting 2^63 − 1 output tokens
// and 1e30 prompt tokens, twice, has counts that cannot be true: the
// record takes the one token event and the workload's 3 prompt tokens
// instead, and says so; the GenAI token usage histogram and the windows
// both count 2 × 1 and 2 × 3, and neither wraps or disagrees.
func TestClampedUsageExportsAgree(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}`+"\n\n"+
			`data: {"choices":[],"usage":{"prompt_tokens":1e30,"completion_tokens":9223372036854775807}}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	clk := fakeAt(t0)
	b, err := openai.New(openai.Config{Target: "alpha", BaseURL: srv.URL + "/v1", Model: "m", Stream: true, Client: client, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	m, o := newTestMetrics(t, alpha)
	st := newWindowStore(t, clk, "alpha", window.Settings{Windows: []time.Duration{time.Minute}})
	for _, obs := range []probe.Observer{o, st} {
		obs.State("alpha", probe.StateReady, 0)
	}
	for seq := range uint64(2) {
		rec := b.Do(context.Background(), &probe.Request{Seq: seq, Messages: []probe.Message{{Role: "user", Content: "hi"}}, PromptTokens: 3})
		if rec.Outcome != probe.Successful || !rec.TokensClamped || !rec.UsageInconsistent || rec.OutputTokens != 1 || rec.PromptTokens != 3 {
			t.Fatalf("record %+v; want successful, clamped and inconsistent, 1 output and 3 prompt tokens", rec)
		}
		for _, obs := range []probe.Observer{o, st} {
			obs.Started("alpha")
			obs.Finished(rec)
		}
	}
	clk.Set(t0.Add(time.Second))
	snap := st.Current(time.Minute)
	mfs := gather(t, m)
	for _, tc := range []struct {
		kind   string
		window window.Metric
		want   float64
	}{{"output", window.OutputTokens, 2 * 1}, {"input", window.PromptTokens, 2 * 3}} {
		mt := findMetric(mfs, "gen_ai_client_token_usage", map[string]string{"target": "alpha", "gen_ai_token_type": tc.kind})
		if mt == nil {
			t.Fatalf("no %s token usage series", tc.kind)
		}
		h := mt.GetHistogram()
		sum := snap.Summary(tc.window).Successful
		want := tc.want
		if h.GetSampleCount() != 2 || h.GetSampleSum() != want || sum.Count != 2 || sum.Sum == nil || *sum.Sum != want {
			t.Errorf("%s tokens: histogram count %d sum %v, window count %d sum %v; want 2 and %v in both",
				tc.kind, h.GetSampleCount(), h.GetSampleSum(), sum.Count, sum.Sum, want)
		}
	}
}
