package probe

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe/trace"
)

// roles returns the roles of msgs and their word counts, as "user:6".
func roles(msgs []Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = m.Role + ":" + strconv.Itoa(len(strings.Fields(m.Content)))
	}
	return strings.Join(parts, " ")
}

func TestConversationHistory(t *testing.T) {
	ok := func(out int) *Record { return &Record{Outcome: Successful, OutputTokens: out} }
	failed := &Record{Outcome: Errored}
	// Three turns: the first prompt has 6 words, later ones 3; turn 1's reply
	// has 3 tokens (of 4 forced), turn 2's 2 (of 2). Turn 2 fails or is
	// dropped, so turn 3 sees only turn 1.
	tests := []struct {
		name    string
		history History
		prev2   *Record // how turn 2 ended
		want2   string  // turn 2's messages
		want3   string  // turn 3's messages
		tokens3 int
	}{
		{"full", HistoryFull, ok(2), "user:6 assistant:3 user:3", "user:6 assistant:3 user:3 assistant:2 user:3", 17},
		{"full after a failed turn", HistoryFull, failed, "user:6 assistant:3 user:3", "user:6 assistant:3 user:3", 12},
		{"full after a dropped turn", HistoryFull, nil, "user:6 assistant:3 user:3", "user:6 assistant:3 user:3", 12},
		{"last turn", HistoryLastTurn, ok(2), "user:6 assistant:3 user:3", "user:3 assistant:2 user:3", 8},
		{"last turn after a failed turn", HistoryLastTurn, failed, "user:6 assistant:3 user:3", "user:3", 3},
		{"new prompt", HistoryNewPrompt, ok(2), "user:3", "user:3", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newTestConversations(t, 3, 0, tt.history)
			t1, t2, t3 := w.Turn(0, 0), w.Turn(1, 0), w.Turn(2, 0)
			if got := roles(t1.Request.Messages); got != "user:6" || t1.Request.PromptTokens != 6 || t1.Request.MaxOutputTokens != 4 {
				t.Fatalf("turn 1: %s, %d prompt tokens, %d output; want user:6, 6, 4", got, t1.Request.PromptTokens, t1.Request.MaxOutputTokens)
			}
			t2.Prepare(ok(3))
			t3.Prepare(tt.prev2)
			if got := roles(t2.Request.Messages); got != tt.want2 {
				t.Errorf("turn 2: %s, want %s", got, tt.want2)
			}
			if got := roles(t3.Request.Messages); got != tt.want3 || t3.Request.PromptTokens != tt.tokens3 {
				t.Errorf("turn 3: %s (%d tokens), want %s (%d)", got, t3.Request.PromptTokens, tt.want3, tt.tokens3)
			}
			if t3.Request.Messages[0].Content != t1.Request.Messages[0].Content && tt.history == HistoryFull {
				t.Error("full history does not start with turn 1's prompt")
			}
			if t2.Request.MaxOutputTokens != 2 || t3.Request.MaxOutputTokens != 2 {
				t.Errorf("later output lengths %d, %d; want 2", t2.Request.MaxOutputTokens, t3.Request.MaxOutputTokens)
			}
		})
	}
}

func TestConversationsPerStream(t *testing.T) {
	w := newTestConversations(t, 2, 3*time.Second, HistoryFull)
	// Streams 0 and 1 interleave; each carries its own conversation, and a
	// stream begins a new conversation after its last turn.
	want := []struct {
		stream int
		id     string
		turn   int
		first  bool
		last   bool
		think  time.Duration
	}{
		{0, "c0", 1, true, false, 0},
		{1, "c1", 1, true, false, 0},
		{1, "c1", 2, false, true, 3 * time.Second},
		{0, "c0", 2, false, true, 3 * time.Second},
		{0, "c2", 1, true, false, 0},
	}
	seen := map[string]bool{}
	for n, w0 := range want {
		tn := w.Turn(uint64(n), w0.stream)
		r := tn.Request
		if r.ConversationID != w0.id || r.Turn != w0.turn || tn.First != w0.first || tn.Last != w0.last || tn.Think != w0.think {
			t.Errorf("slot %d: %s turn %d first %v last %v think %v; want %+v", n, r.ConversationID, r.Turn, tn.First, tn.Last, tn.Think, w0)
		}
		if tn.First {
			prefix := strings.Join(strings.Fields(r.Messages[0].Content)[:2], " ")
			if seen[prefix] {
				t.Errorf("slot %d: prompt prefix %q repeated", n, prefix)
			}
			seen[prefix] = true
		}
	}
}

func TestConversationConfigErrors(t *testing.T) {
	base := ConversationConfig{Turns: 2, FirstPrompt: Fixed(5), FirstOutput: Fixed(5)}
	tests := []struct {
		name   string
		change func(*ConversationConfig)
		want   string
	}{
		{"zero turns", func(c *ConversationConfig) { c.Turns = 0 }, "turns must be from 1 to 1000, got 0"},
		{"negative think", func(c *ConversationConfig) { c.ThinkTime = -time.Second }, "think time must not be negative, got -1s"},
		{"history", func(c *ConversationConfig) { c.History = "all" }, `unknown history mode "all"`},
		{"samplers", func(c *ConversationConfig) { c.FirstOutput = nil }, "conversations need prompt and output samplers"},
	}
	for _, tt := range tests {
		cfg := base
		tt.change(&cfg)
		if _, err := NewConversations(cfg); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %s", tt.name, err, tt.want)
		}
	}
}

func TestReplayWorkloadTurns(t *testing.T) {
	w, err := NewReplayWorkload(testTrace(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// testTrace: a single row, turns 1 and 2 of "a", a single row. In pass 1
	// (requests 4 to 7) the conversation is "a#1".
	want := []struct {
		id                    string
		turn                  int
		first, last, relative bool
		prompt, output        int
	}{
		{"", 0, true, true, false, 5, 2},
		{"a", 1, true, false, false, 6, 3},
		{"a", 2, false, true, true, 7, 4},
		{"", 0, true, true, false, 8, 5},
		{"", 0, true, true, false, 5, 2},
		{"a#1", 1, true, false, false, 6, 3},
		{"a#1", 2, false, true, true, 7, 4},
	}
	for n, wt := range want {
		tn := w.Turn(uint64(n), 0)
		r := tn.Request
		got := []any{r.ConversationID, r.Turn, tn.First, tn.Last, tn.Relative, r.PromptTokens, r.MaxOutputTokens, len(strings.Fields(r.Messages[0].Content))}
		exp := []any{wt.id, wt.turn, wt.first, wt.last, wt.relative, wt.prompt, wt.output, wt.prompt}
		for i := range got {
			if got[i] != exp[i] {
				t.Errorf("request %d: %v, want %v", n, got, exp)
				break
			}
		}
		if tn.Think != 0 || tn.Prepare != nil {
			t.Errorf("request %d: trace replay sets think time %v or history", n, tn.Think)
		}
	}
	if _, err := NewReplayWorkload(&trace.Trace{}, 1); err == nil {
		t.Error("an empty trace was accepted")
	}
}

func TestConversationPlansEachTurnWhenIssued(t *testing.T) {
	// A sampler that counts its draws: a conversation of 1000 turns must not
	// draw (nor build) the prompts of turns that were not issued yet.
	var draws int
	counting := func(*rand.Rand) int { draws++; return 6 }
	w, err := NewConversations(ConversationConfig{Turns: MaxTurns, FirstPrompt: counting, FirstOutput: Fixed(4), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for n := range 3 {
		w.Turn(uint64(n), 0)
		if draws != n+1 {
			t.Fatalf("after %d turns issued: %d prompt draws, want %d", n+1, draws, n+1)
		}
	}
}

func TestConversationKeepsOnlyTheHistoryItSends(t *testing.T) {
	ok := &Record{Outcome: Successful, OutputTokens: 2}
	// Turns 1 to 4 of five, turns 2 to 4 prepared after successes: the
	// conversation keeps the 3 earlier exchanges under full, the last one
	// under last_turn, none under new_prompt.
	for _, tt := range []struct {
		history History
		kept    int
	}{{HistoryFull, 3}, {HistoryLastTurn, 1}, {HistoryNewPrompt, 0}} {
		w := newTestConversations(t, 5, 0, tt.history)
		turns := make([]Turn, 4)
		for n := range turns {
			turns[n] = w.Turn(uint64(n), 0)
		}
		for _, tn := range turns[1:] {
			tn.Prepare(ok)
		}
		if got := len(w.streams[0].history); got != tt.kept {
			t.Errorf("%s: %d exchanges kept, want %d", tt.history, got, tt.kept)
		}
	}
}

func TestConversationStandInReplyIsBounded(t *testing.T) {
	// The server claims 100000 output tokens for turn 1, whose forced length
	// was 4: the stand-in reply has 4 words, not 100000.
	w := newTestConversations(t, 2, 0, HistoryFull)
	w.Turn(0, 0)
	t2 := w.Turn(1, 0)
	t2.Prepare(&Record{Outcome: Successful, OutputTokens: 100000})
	if got := roles(t2.Request.Messages); got != "user:6 assistant:4 user:3" {
		t.Errorf("turn 2: %s, want user:6 assistant:4 user:3", got)
	}
}
