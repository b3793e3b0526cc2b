package stats

import (
	"math"
	"testing"
)

func TestRate(t *testing.T) {
	tests := []struct {
		name   string
		count  float64
		window Window
		want   float64
		ok     bool
	}{
		// 30 requests in a full 60 s window: 0.5/s.
		{"full window", 30, Window{100, 160}, 0.5, true},
		// Measuring began 20 s ago inside a 60 s window: the effective
		// window is [40, 60], so 30 requests are 1.5/s, not 0.5/s.
		{"effective window", 30, Window{40, 60}, 1.5, true},
		{"no requests", 0, Window{0, 10}, 0, true},
		{"empty window", 5, Window{10, 10}, 0, false},
		{"reversed window", 5, Window{10, 0}, 0, false},
		{"NaN window", 5, Window{math.NaN(), 10}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Rate(tt.count, tt.window)
			if ok != tt.ok || !closeTo(got, tt.want, 1e-15) {
				t.Errorf("Rate = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestTokensInWindow(t *testing.T) {
	w := Window{0, 10}
	tests := []struct {
		name           string
		spans          []TokenSpan
		output, prompt float64
	}{
		{
			// 10 tokens spread over [8, 12]: 2 of its 4 s are inside, 10·2/4 = 5;
			// the prompt counts at the first token, 8 ∈ [0, 10].
			name:   "straddling the end",
			spans:  []TokenSpan{{FirstToken: 8, LastToken: 12, OutputTokens: 10, PromptTokens: 100}},
			output: 5, prompt: 100,
		},
		{
			// First token at −2, before the window: 20 tokens over [−2, 6],
			// 6 of 8 s inside → 15; the prompt is not counted.
			name:   "straddling the start",
			spans:  []TokenSpan{{FirstToken: -2, LastToken: 6, OutputTokens: 20, PromptTokens: 50}},
			output: 15, prompt: 0,
		},
		{
			// 40 tokens over [−10, 30]: the window holds 10 of 40 s → 10.
			name:   "spanning the whole window",
			spans:  []TokenSpan{{FirstToken: -10, LastToken: 30, OutputTokens: 40}},
			output: 10, prompt: 0,
		},
		{
			name:   "entirely after",
			spans:  []TokenSpan{{FirstToken: 11, LastToken: 12, OutputTokens: 7, PromptTokens: 3}},
			output: 0, prompt: 0,
		},
		{
			// A single token event: all output at the first token.
			name: "instantaneous",
			spans: []TokenSpan{
				{FirstToken: 4, LastToken: 4, OutputTokens: 1, PromptTokens: 9},
				{FirstToken: 10, LastToken: 10, OutputTokens: 2, PromptTokens: 1}, // on the closed end
				{FirstToken: 10.5, LastToken: 10.5, OutputTokens: 4, PromptTokens: 1},
			},
			output: 3, prompt: 10,
		},
		{
			// 5 + (10 inside [1, 3]) = 15 output; prompts 100 + 7.
			name: "several requests",
			spans: []TokenSpan{
				{FirstToken: 8, LastToken: 12, OutputTokens: 10, PromptTokens: 100},
				{FirstToken: 1, LastToken: 3, OutputTokens: 10, PromptTokens: 7},
			},
			output: 15, prompt: 107,
		},
		{
			name:   "NaN time skipped",
			spans:  []TokenSpan{{FirstToken: math.NaN(), LastToken: 3, OutputTokens: 10, PromptTokens: 7}},
			output: 0, prompt: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, in := TokensInWindow(tt.spans, w)
			assertClose(t, "output", out, tt.output, 1e-12)
			assertClose(t, "prompt", in, tt.prompt, 0)
		})
	}
}

func TestMeanConcurrency(t *testing.T) {
	tests := []struct {
		name   string
		spans  []Span
		window Window
		want   float64
		ok     bool
	}{
		// [0, 10) and [5, 15) over [0, 10]: busy time 10 + 5 = 15 s → 1.5.
		{"two overlapping requests", []Span{{0, 10}, {5, 15}}, Window{0, 10}, 1.5, true},
		// A request still running is passed with End = 10: [4, 10) → 0.6.
		{"running request", []Span{{4, 10}}, Window{0, 10}, 0.6, true},
		// Started before the window: [−5, 2) → 2/10.
		{"started before", []Span{{-5, 2}}, Window{0, 10}, 0.2, true},
		{"outside", []Span{{-5, -1}, {11, 12}}, Window{0, 10}, 0, true},
		{"reversed and NaN spans", []Span{{5, 3}, {math.NaN(), 4}}, Window{0, 10}, 0, true},
		// Three requests in flight throughout a 20 s window → 3.
		{"steady", []Span{{-1, 30}, {-1, 30}, {0, 20}}, Window{0, 20}, 3, true},
		{"empty window", []Span{{0, 1}}, Window{5, 5}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MeanConcurrency(tt.spans, tt.window)
			if ok != tt.ok || !closeTo(got, tt.want, 1e-15) {
				t.Errorf("MeanConcurrency = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
