package probe

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/llmprober/llmprober/probe/trace"
)

// prefixAndRest splits a synthetic prompt into its unique prefix ("probe"
// and the hex id) and the words after it.
func prefixAndRest(p string) (string, string) {
	n := len("probe ") + 16
	return p[:n], p[n:]
}

// TestSeedRepeatsWordsNotPrefixes: two workloads with one seed, as two
// targets of one run have, draw the same lengths and words after prefixes
// that differ, every one of them from every one of the other's, for each
// kind of workload.
func TestSeedRepeatsWordsNotPrefixes(t *testing.T) {
	tr := &trace.Trace{Requests: []trace.Request{{PromptTokens: 30, OutputTokens: 8}, {PromptTokens: 12, OutputTokens: 3}}}
	kinds := map[string]func() Workload{
		"synthetic": func() Workload { return NewSynthetic(Fixed(30), Fixed(8), 7) },
		"conversations": func() Workload {
			w, err := NewConversations(ConversationConfig{Turns: 3, FirstPrompt: Fixed(30), FirstOutput: Fixed(8), History: HistoryNewPrompt, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			return w
		},
		"trace": func() Workload {
			w, err := NewReplayWorkload(tr, 7)
			if err != nil {
				t.Fatal(err)
			}
			return w
		},
	}
	for name, newWorkload := range kinds {
		t.Run(name, func(t *testing.T) {
			a, b := drawPrompts(newWorkload(), 50), drawPrompts(newWorkload(), 50)
			seen := map[string]bool{}
			for n := range a {
				pa, restA := prefixAndRest(a[n])
				pb, restB := prefixAndRest(b[n])
				if restA != restB {
					t.Fatalf("request %d: words %q and %q, want the same", n, restA, restB)
				}
				if seen[pa] || seen[pb] || pa == pb {
					t.Fatalf("request %d: prefix %q or %q sent before", n, pa, pb)
				}
				seen[pa], seen[pb] = true, true
			}
		})
	}
}

// drawPrompts returns the user message of w's first n requests, each
// completed as if the turn before it had failed.
func drawPrompts(w Workload, n int) []string {
	out := make([]string, n)
	for i := range out {
		turn := w.Turn(uint64(i), 0)
		if turn.Prepare != nil {
			turn.Prepare(nil)
		}
		msgs := turn.Request.Messages
		out[i] = msgs[len(msgs)-1].Content
	}
	return out
}

// TestPrefixDiffersAcrossProcesses runs this test binary twice to print
// the first prompt of a workload with a fixed seed: the two processes
// must print the same words after different prefixes.
func TestPrefixDiffersAcrossProcesses(t *testing.T) {
	if os.Getenv("GO_WANT_HELPER_PROCESS") == "prompt" {
		_, _ = os.Stdout.WriteString(NewSynthetic(Fixed(12), Fixed(4), 42).Request(0).Messages[0].Content + "\n")
		return
	}
	var prompts []string
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPrefixDiffersAcrossProcesses$")
		cmd.Env = append(os.Environ(), "GO_WANT_HELPER_PROCESS=prompt")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helper process: %v", err)
		}
		line, _, _ := bytes.Cut(out, []byte("\n"))
		prompts = append(prompts, string(line))
	}
	p1, rest1 := prefixAndRest(prompts[0])
	p2, rest2 := prefixAndRest(prompts[1])
	if p1 == p2 || rest1 != rest2 {
		t.Errorf("two runs with one seed sent %q and %q; want other prefixes, the same words", prompts[0], prompts[1])
	}
}
