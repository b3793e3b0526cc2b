package probe

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// prefixAndRest splits a synthetic prompt into its unique prefix ("probe"
// and the hex id) and the words after it.
func prefixAndRest(p string) (string, string) {
	n := len("probe ") + 16
	return p[:n], p[n:]
}

// TestSeedRepeatsWordsNotPrefixes: two workloads with one seed in one run
// send the same prompts; after a restart (another nonce) the same seed
// gives the same lengths and words but other prefixes.
func TestSeedRepeatsWordsNotPrefixes(t *testing.T) {
	saved := runNonce
	defer func() { runNonce = saved }()
	draw := func() []*Request {
		w := NewSynthetic(Fixed(30), Fixed(8), 7)
		out := make([]*Request, 50)
		for n := range out {
			out[n] = w.Request(uint64(n))
		}
		return out
	}
	first, again := draw(), draw()
	runNonce = [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	restarted := draw()
	for n := range first {
		p1, rest1 := prefixAndRest(first[n].Messages[0].Content)
		p2, rest2 := prefixAndRest(again[n].Messages[0].Content)
		p3, rest3 := prefixAndRest(restarted[n].Messages[0].Content)
		if p1 != p2 || rest1 != rest2 {
			t.Fatalf("request %d differs within one run: %q, %q", n, first[n].Messages[0].Content, again[n].Messages[0].Content)
		}
		if p1 == p3 || rest1 != rest3 || first[n].PromptTokens != restarted[n].PromptTokens {
			t.Fatalf("request %d after a restart: prefix %q (before %q), words equal %v; want another prefix, the same words",
				n, p3, p1, rest1 == rest3)
		}
	}
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
