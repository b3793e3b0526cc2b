package openai

import (
	"context"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// TestImpossibleUsage: the tester's cases, a request with max_tokens 4 and
// token events at 200 and 300 ms. A report above max_tokens, or one that
// had to be clamped, cannot be true: the 2 events are counted (ITL 100
// ms, TPOT 300 ms / 2 = 150 ms, the true figures) and the record says so;
// a report of max_tokens itself is taken (ITL 100 ms / 3, TPOT 75 ms).
func TestImpossibleUsage(t *testing.T) {
	tests := []struct {
		name, usage  string
		out          int
		from         probe.TokenSource
		inconsistent bool
		clamped      bool
		itl, tpot    time.Duration
	}{
		{"50 against max_tokens 4", `{"prompt_tokens":9,"completion_tokens":50}`, 2, probe.TokensCounted, true, false, ms(100), ms(150)},
		{"2^63 − 1", `{"prompt_tokens":9,"completion_tokens":9223372036854775807}`, 2, probe.TokensCounted, true, true, ms(100), ms(150)},
		{"max_tokens itself", `{"prompt_tokens":9,"completion_tokens":4}`, 4, probe.TokensFromUsage, false, false, ms(100) / 3, ms(75)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{steps: []step{{ms(100), role}, {ms(100), content("a")}, {ms(100), content(" b")}, {ms(10), finish},
				{0, usageChunk(tt.usage) + done}}}
			req := request()
			req.MaxOutputTokens = 4
			rec := startScript(t, s, nil).Do(context.Background(), req)
			if rec.Outcome != probe.Successful || rec.OutputTokens != tt.out || rec.OutputTokensFrom != tt.from ||
				rec.UsageInconsistent != tt.inconsistent || rec.TokensClamped != tt.clamped {
				t.Fatalf("%s, %d output tokens from %q, inconsistent %v, clamped %v; want successful, %d from %q, %v, %v",
					rec.Outcome, rec.OutputTokens, rec.OutputTokensFrom, rec.UsageInconsistent, rec.TokensClamped,
					tt.out, tt.from, tt.inconsistent, tt.clamped)
			}
			if d, ok := rec.ITL(); !ok || d != tt.itl {
				t.Errorf("ITL %v %v, want %v", d, ok, tt.itl)
			}
			if d, ok := rec.TPOT(); !ok || d != tt.tpot {
				t.Errorf("TPOT %v %v, want %v", d, ok, tt.tpot)
			}
		})
	}
}
