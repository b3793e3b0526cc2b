package exporter

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/slo"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// t0 is the clock origin of every fixture record.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// at returns t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// ats returns the series of at(ms) for each ms.
func ats(ms ...int) probe.Instants {
	var out probe.Instants
	for _, m := range ms {
		out.Add(at(m))
	}
	return out
}

// chunks returns the chunk gaps of chunks that arrived at at(ms) for each ms.
func chunks(ms ...int) *probe.Gaps {
	g := &probe.Gaps{}
	for _, m := range ms {
		g.Add(at(m))
	}
	return g
}

// Fixture targets: alpha is a streamed chat target with conversations and
// one objective set (TTFT ≤ 0.3 s, ITL ≤ 0.05 s, 99% over 30 days), beta a
// non-streamed completions target under a closed-loop strategy whose
// provider is left to the default.
var (
	alpha = Target{Name: "alpha", Model: "llama-3-8b", API: "chat", Stream: true, Provider: "openai",
		ServerAddress: "10.0.0.1", ServerPort: 8000, Objectives: []slo.Objective{alphaObjective}, Conversations: true}
	alphaObjective = slo.Objective{Name: "default", Attainment: 0.99, Period: 30 * 24 * time.Hour,
		Thresholds: []slo.Threshold{{Quantity: slo.TTFT, Max: 300 * time.Millisecond}, {Quantity: slo.ITL, Max: 50 * time.Millisecond}}}
	beta = Target{Name: "beta", Model: "gpt2", API: "completions", ServerAddress: "llm.example", ServerPort: 443, ClosedLoop: true}
)

// alphaOK is a successful streamed chat request. Derived quantities (s):
// dispatch 10−0 = 0.01; dns 12−10 = 0.002; connect 15−12 = 0.003;
// first_byte 110−10 = 0.1; time to first chunk 110−10 = 0.1; chunk gaps
// 0.15, 0.02, 0.02, 0.02, 0.01; TTFT 260−10 = 0.25; TTFOT 280−10 = 0.27;
// ITL (320−260)/(4−1) = 0.02; TPOT (320−10)/4 = 0.0775; duration 340−10 = 0.33;
// scheduled latency 340−0 = 0.34; tokens 12 in, 4 out.
func alphaOK() *probe.Record {
	return &probe.Record{
		Target: "alpha", Seq: 0, API: "chat", Stream: true,
		TargetedStart: at(0), RequestStart: at(10),
		HTTP: probe.HTTPTrace{DNSStart: at(10), DNSDone: at(12), ConnectStart: at(12), ConnectDone: at(15),
			GotConn: at(15), WroteRequest: at(16), FirstByte: at(110)},
		FirstChunk: at(110), FirstToken: at(260), FirstOutputToken: at(280), LastToken: at(320), End: at(340),
		ChunkGaps:    chunks(110, 260, 280, 300, 320, 330),
		PromptTokens: 12, PromptTokensFrom: probe.TokensFromUsage,
		OutputTokens: 4, OutputTokensFrom: probe.TokensFromUsage, Iterations: 4,
		Outcome: probe.Successful, HTTPStatus: 200,
	}
}

// alphaErr is an errored request on a reused connection: dispatch 0;
// first_byte 1050−1000 = 0.05; duration 1060−1000 = 0.06. Its error text
// carries HTML to check escaping.
func alphaErr() *probe.Record {
	return &probe.Record{
		Target: "alpha", Seq: 1, API: "chat", Stream: true,
		TargetedStart: at(1000), RequestStart: at(1000),
		HTTP: probe.HTTPTrace{GotConn: at(1000), ConnReused: true, FirstByte: at(1050)},
		End:  at(1060), Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx,
		Error: `upstream said <b>boom</b> & "more"`, ErrorCode: probe.ErrorCode{Text: "<i>503</i>", Kind: probe.CodeString}, HTTPStatus: 500,
	}
}

// alphaCanceled is an incomplete request cancelled before any response:
// dispatch 2005−2000 = 0.005, nothing else.
func alphaCanceled() *probe.Record {
	return &probe.Record{
		Target: "alpha", Seq: 2, API: "chat", Stream: true,
		TargetedStart: at(2000), RequestStart: at(2005), End: at(2300),
		Outcome: probe.Incomplete, ErrorType: probe.ErrorCanceled, Error: "context canceled",
	}
}

// betaOK is a successful non-streamed completions request without an arrival
// schedule: connect 5001−5000 = 0.001; tls 5021−5001 = 0.02; first_byte
// 5400−5000 = 0.4; duration 5500−5000 = 0.5; TPOT (5500−5000)/16 = 0.03125;
// tokens 7 in (workload estimate: the server reported 0, which is
// inconsistent), 16 out.
func betaOK() *probe.Record {
	return &probe.Record{
		Target: "beta", Seq: 0, API: "completions",
		RequestStart: at(5000),
		HTTP: probe.HTTPTrace{ConnectStart: at(5000), ConnectDone: at(5001), TLSStart: at(5001), TLSDone: at(5021),
			GotConn: at(5021), FirstByte: at(5400)},
		End:          at(5500),
		PromptTokens: 7, PromptTokensFrom: probe.TokensFromWorkload,
		OutputTokens: 16, OutputTokensFrom: probe.TokensFromUsage, OutputSeen: true, UsageInconsistent: true,
		Outcome: probe.Successful, HTTPStatus: 200,
	}
}

// feedFixtures plays the fixture story into o: alpha has 5 requests due, one
// dropped (queue_full), 4 started and 3 finished (so 1 in flight), and is
// ready after 1.5 s; beta had 2 dropped at shutdown, 1
// request started and finished, and failed its gate after 30 s.
func feedFixtures(o *Observer) {
	o.State("alpha", probe.StateWaiting, 0)
	o.State("alpha", probe.StateReady, 1500*time.Millisecond)
	for range 5 {
		o.Scheduled("alpha")
	}
	o.Dropped("alpha", probe.DropQueueFull)
	for range 4 {
		o.Started("alpha")
	}
	o.Finished(alphaOK())
	o.Finished(alphaErr())
	o.Finished(alphaCanceled())
	o.State("beta", probe.StateFailed, 30*time.Second)
	o.Dropped("beta", probe.DropShutdown)
	o.Dropped("beta", probe.DropShutdown)
	o.Started("beta")
	o.Finished(betaOK())
	feedTurnFixtures(o)
}

// noEnv is a Getenv that finds nothing.
func noEnv(string) string { return "" }

// newTestMetrics builds Metrics without OTLP and an Observer for targets, and
// shuts them down at the end of the test.
func newTestMetrics(t *testing.T, targets ...Target) (*Metrics, *Observer) {
	t.Helper()
	m, err := NewMetrics(context.Background(), Options{Version: "1.2.3", Revision: "abc123", Getenv: noEnv,
		Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatalf("NewMetrics: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	o, err := NewObserver(m, targets)
	if err != nil {
		t.Fatalf("NewObserver: %v", err)
	}
	return m, o
}

// gather collects every family from m's registry.
func gather(t *testing.T, m *Metrics) []*dto.MetricFamily {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return mfs
}

// findMetric returns the metric of family name whose labels include want.
func findMetric(mfs []*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if hasLabels(m, want) {
				return m
			}
		}
	}
	return nil
}

// hasLabels reports whether m carries every label of want with its value.
func hasLabels(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// bucketCount returns the cumulative count of h's bucket with upper bound le
// (+Inf is the sample count), or -1 when h has no such bucket.
func bucketCount(h *dto.Histogram, le float64) int64 {
	if math.IsInf(le, 1) {
		return int64(h.GetSampleCount())
	}
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == le {
			return int64(b.GetCumulativeCount())
		}
	}
	return -1
}

// setenv sets each variable for the test and returns os.Getenv.
func setenv(t *testing.T, kv map[string]string) func(string) string {
	t.Helper()
	for k, v := range kv {
		t.Setenv(k, v)
	}
	return os.Getenv
}
