package slo

import (
	"reflect"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// t0 is the start of every test request.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// at returns t0 + ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// streamed is a successful streamed request: scheduled at 0, sent at 10ms,
// first token at 210ms (TTFT 200ms), first visible token at 260ms (TTFOT
// 250ms), last of 11 tokens at 710ms (ITL (710−210)/10 = 50ms), end at
// 760ms (latency 750ms, scheduled latency 760ms, TPOT (710−10)/11 ≈ 63.6ms).
func streamed() *probe.Record {
	return &probe.Record{
		Stream: true, Outcome: probe.Successful, OutputTokens: 11, Iterations: 11, OutputSeen: true,
		TargetedStart: at(0), RequestStart: at(10), FirstToken: at(210), FirstOutputToken: at(260),
		LastToken: at(710), End: at(760),
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestEvaluate(t *testing.T) {
	objective := func(th ...Threshold) Objective { return Objective{Name: "o", Thresholds: th} }
	tests := []struct {
		name   string
		obj    Objective
		record func(r *probe.Record)
		want   Result
	}{
		{"all at threshold conforms (≤)", objective(Threshold{TTFT, ms(200)}, Threshold{ITL, ms(50)}, Threshold{Latency, ms(750)}),
			nil, Result{Verdict: Conforming}},
		{"ttft one ms over", objective(Threshold{TTFT, ms(199)}, Threshold{Latency, ms(750)}),
			nil, Result{NonConforming, "ttft"}},
		{"several breached: first in fixed order", objective(Threshold{ITL, ms(49)}, Threshold{Latency, ms(749)}),
			nil, Result{NonConforming, "itl"}},
		{"scheduled latency 760ms > 759ms", objective(Threshold{ScheduledLatency, ms(759)}),
			nil, Result{NonConforming, "scheduled_latency"}},
		{"tpot 700/11 ms ≤ 64ms", objective(Threshold{TPOT, ms(64)}),
			nil, Result{Verdict: Conforming}},
		{"incomplete is excluded", objective(Threshold{Latency, ms(1)}),
			func(r *probe.Record) { r.Outcome, r.ErrorType = probe.Incomplete, probe.ErrorCanceled }, Result{Verdict: Excluded}},
		{"errored: reason is the error type", objective(Threshold{Latency, time.Hour}),
			func(r *probe.Record) { r.Outcome, r.ErrorType = probe.Errored, probe.ErrorHTTP5xx }, Result{NonConforming, "http_5xx"}},
		{"errored without type", objective(Threshold{Latency, time.Hour}),
			func(r *probe.Record) { r.Outcome = probe.Errored }, Result{NonConforming, "errored"}},
		{"errored beats not evaluable", objective(Threshold{TTFT, time.Hour}),
			func(r *probe.Record) { r.Outcome, r.ErrorType, r.Stream = probe.Errored, probe.ErrorTimeout, false }, Result{NonConforming, "timeout"}},
		{"empty reply under ttft", objective(Threshold{TTFT, time.Hour}),
			func(r *probe.Record) {
				r.FirstToken, r.FirstOutputToken, r.LastToken, r.OutputTokens = time.Time{}, time.Time{}, time.Time{}, 0
				r.Iterations, r.OutputSeen = 0, false
			},
			Result{NonConforming, "insufficient_output"}},
		{"empty reply under a latency-only set", objective(Threshold{Latency, time.Hour}),
			func(r *probe.Record) {
				r.FirstToken, r.FirstOutputToken, r.LastToken, r.OutputTokens = time.Time{}, time.Time{}, time.Time{}, 0
				r.Iterations, r.OutputSeen = 0, false
			},
			Result{NonConforming, "insufficient_output"}},
		{"usage claiming tokens does not make an empty stream a reply", objective(Threshold{Latency, time.Hour}),
			func(r *probe.Record) {
				r.FirstToken, r.FirstOutputToken, r.LastToken = time.Time{}, time.Time{}, time.Time{}
				r.Iterations, r.OutputSeen = 0, false
			},
			Result{NonConforming, "insufficient_output"}},
		{"empty whole response under latency", objective(Threshold{Latency, time.Hour}),
			func(r *probe.Record) {
				*r = probe.Record{Outcome: probe.Successful, RequestStart: at(10), End: at(760)}
			},
			Result{NonConforming, "insufficient_output"}},
		{"empty whole response with usage under tpot", objective(Threshold{TPOT, time.Hour}),
			func(r *probe.Record) {
				*r = probe.Record{Outcome: probe.Successful, RequestStart: at(10), End: at(760), OutputTokens: 5, OutputTokensFrom: probe.TokensFromUsage}
			},
			Result{NonConforming, "insufficient_output"}},
		{"whole response with output under latency", objective(Threshold{Latency, ms(750)}),
			func(r *probe.Record) {
				*r = probe.Record{Outcome: probe.Successful, RequestStart: at(10), End: at(760), OutputSeen: true}
			},
			Result{Verdict: Conforming}},
		{"one token under itl", objective(Threshold{ITL, time.Hour}),
			func(r *probe.Record) { r.OutputTokens = 1 }, Result{NonConforming, "insufficient_output"}},
		{"no visible content under ttfot", objective(Threshold{TTFOT, time.Hour}),
			func(r *probe.Record) { r.FirstOutputToken = time.Time{} }, Result{NonConforming, "insufficient_output"}},
		{"zero tokens under tpot", objective(Threshold{TPOT, time.Hour}),
			func(r *probe.Record) { r.OutputTokens = 0 }, Result{NonConforming, "insufficient_output"}},
		{"insufficient output beats a breach", objective(Threshold{TTFT, ms(1)}, Threshold{ITL, time.Hour}),
			func(r *probe.Record) { r.OutputTokens = 1 }, Result{NonConforming, "insufficient_output"}},
		{"ttft on a non-streamed request is not evaluable", objective(Threshold{TTFT, time.Hour}),
			func(r *probe.Record) { r.Stream = false }, Result{Verdict: Excluded}},
		{"scheduled latency without schedule is not evaluable", objective(Threshold{ScheduledLatency, time.Hour}),
			func(r *probe.Record) { r.TargetedStart = time.Time{} }, Result{Verdict: Excluded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := streamed()
			if tt.record != nil {
				tt.record(r)
			}
			if got := tt.obj.Evaluate(r); got != tt.want {
				t.Errorf("Evaluate = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestReasons(t *testing.T) {
	o := Objective{Name: "default", Attainment: 0.995, Period: 720 * time.Hour,
		Thresholds: []Threshold{{TTFT, ms(500)}, {Latency, 10 * time.Second}}}
	reasons := []string{"timeout", "connection", "http_429", "http_4xx", "http_5xx", "stream_error", "protocol",
		"errored", "insufficient_output", "ttft", "latency"}
	if got := o.Reasons(); !reflect.DeepEqual(got, reasons) {
		t.Errorf("Reasons = %v, want %v", got, reasons)
	}
}
