package probe

import (
	"encoding/json"
	"testing"
)

// TestTokenCount checks how every shape of token count decodes.
func TestTokenCount(t *testing.T) {
	tests := []struct {
		json string
		want TokenCount
	}{
		{`3`, TokenCount{3, CountValid}}, {`0`, TokenCount{0, CountValid}}, {`-0`, TokenCount{0, CountValid}},
		{`2.0`, TokenCount{2, CountValid}}, {`2e1`, TokenCount{20, CountValid}},
		{`2147483647`, TokenCount{MaxTokens, CountValid}}, {`2147483648`, TokenCount{MaxTokens, CountClamped}},
		{`9223372036854775807`, TokenCount{MaxTokens, CountClamped}}, {`1e400`, TokenCount{MaxTokens, CountClamped}},
		{`-1`, TokenCount{State: CountInvalid}}, {`-1e400`, TokenCount{State: CountInvalid}}, {`2.5`, TokenCount{State: CountInvalid}},
		{`"3"`, TokenCount{State: CountInvalid}}, {`true`, TokenCount{State: CountInvalid}}, {`{}`, TokenCount{State: CountInvalid}},
		{`null`, TokenCount{}},
	}
	for _, tt := range tests {
		var c TokenCount
		if err := json.Unmarshal([]byte(tt.json), &c); err != nil || c != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.json, c, err, tt.want)
		}
	}
}

// TestUsageApply checks the choice of counts and flags for a stream of 3
// token events (or none, when not seen), and for a whole response with or
// without output, each sent with a limit of 8 output tokens and a prompt
// of 5 by the workload's count.
func TestUsageApply(t *testing.T) {
	n := func(v int) TokenCount { return TokenCount{v, CountValid} }
	clamped := TokenCount{MaxTokens, CountClamped}
	tests := []struct {
		name           string
		streamed, seen bool
		reports        [][2]TokenCount
		out, prompt    int
		outFrom        TokenSource
		promptFrom     TokenSource
		inconsistent   bool
	}{
		{"usage at the limit", true, true, [][2]TokenCount{{n(9), n(8)}}, 8, 9, TokensFromUsage, TokensFromUsage, false},
		{"usage above the limit", true, true, [][2]TokenCount{{n(9), n(9)}}, 3, 9, TokensCounted, TokensFromUsage, true},
		{"clamped output", true, true, [][2]TokenCount{{n(9), clamped}}, 3, 9, TokensCounted, TokensFromUsage, true},
		{"clamped prompt", true, true, [][2]TokenCount{{clamped, n(4)}}, 4, 5, TokensFromUsage, TokensFromWorkload, true},
		{"stream without a token but usage 2", true, false, [][2]TokenCount{{n(9), n(2)}}, 0, 9, TokensCounted, TokensFromUsage, true},
		{"stream without a token and usage 0", true, false, [][2]TokenCount{{n(9), n(0)}}, 0, 9, TokensFromUsage, TokensFromUsage, false},
		{"whole response without output but usage 5", false, false, [][2]TokenCount{{n(9), n(5)}}, 0, 9, TokensUnknown, TokensFromUsage, true},
		{"whole response above the limit", false, true, [][2]TokenCount{{n(9), n(50)}}, 0, 9, TokensUnknown, TokensFromUsage, true},
		{"whole response at the limit", false, true, [][2]TokenCount{{n(9), n(8)}}, 8, 9, TokensFromUsage, TokensFromUsage, false},
		{"stream without usage", true, true, nil, 3, 5, TokensCounted, TokensFromWorkload, false},
		{"stream with usage", true, true, [][2]TokenCount{{n(9), n(4)}}, 4, 9, TokensFromUsage, TokensFromUsage, false},
		{"usage below the events", true, true, [][2]TokenCount{{n(9), n(2)}}, 3, 9, TokensCounted, TokensFromUsage, true},
		{"cumulative usage taken last", true, true, [][2]TokenCount{{n(9), n(1)}, {n(9), n(3)}}, 3, 9, TokensFromUsage, TokensFromUsage, false},
		{"usage going down", true, true, [][2]TokenCount{{n(9), n(5)}, {n(9), n(4)}}, 4, 9, TokensFromUsage, TokensFromUsage, true},
		{"prompt 0 for a prompt sent", true, true, [][2]TokenCount{{n(0), n(3)}}, 3, 5, TokensFromUsage, TokensFromWorkload, true},
		{"whole response with output and usage 0", false, true, [][2]TokenCount{{n(9), n(0)}}, 0, 9, TokensUnknown, TokensFromUsage, true},
		{"whole response without output and usage 0", false, false, [][2]TokenCount{{n(9), n(0)}}, 0, 9, TokensFromUsage, TokensFromUsage, false},
		{"whole response without usage", false, true, nil, 0, 5, TokensUnknown, TokensFromWorkload, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u Usage
			if tt.streamed {
				u.Streamed()
			}
			for _, r := range tt.reports {
				u.Report(r[0], r[1])
			}
			rec := &Record{OutputSeen: tt.seen}
			if tt.streamed && tt.seen {
				rec.Iterations = 3
			}
			u.Apply(rec, Sent{PromptTokens: 5, Prompt: true, MaxOutputTokens: 8})
			if rec.OutputTokens != tt.out || rec.OutputTokensFrom != tt.outFrom || rec.PromptTokens != tt.prompt ||
				rec.PromptTokensFrom != tt.promptFrom || rec.UsageInconsistent != tt.inconsistent {
				t.Errorf("output %d from %q, prompt %d from %q, inconsistent %v; want %d %q %d %q %v",
					rec.OutputTokens, rec.OutputTokensFrom, rec.PromptTokens, rec.PromptTokensFrom, rec.UsageInconsistent,
					tt.out, tt.outFrom, tt.prompt, tt.promptFrom, tt.inconsistent)
			}
		})
	}
}
