package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/probe/sim"
)

// TestRunConversationsAndTrace probes the simulated endpoint with three
// targets: 3-turn conversations at a constant rate with think time, a
// synchronous target, and a looping trace whose second turn is due 1 ms
// after the first, so that it always waits for it.
func TestRunConversationsAndTrace(t *testing.T) {
	// One simulated endpoint per target, so that each one's requests can be
	// told apart in its log.
	chat, sync, replay := startSim(t), startSim(t), startSim(t)
	trace := writeFile(t, "trace.jsonl", `{"timestamp": 0, "prompt_tokens": 12, "output_tokens": 6, "conversation_id": "a"}
{"timestamp": 0.001, "prompt_tokens": 20, "output_tokens": 6, "conversation_id": "a"}
{"timestamp": 0.2, "prompt_tokens": 8, "output_tokens": 4}
`)
	cfg := fmt.Sprintf(`targets:
  - name: chat
    base_url: %[1]s/v1
    model: sim-model
    readiness: {path: none}
    workload:
      prompt_tokens: 16
      output_tokens: 8
      conversation: {turns: 3, think_time: 50ms, history: full, prompt_tokens: 8, output_tokens: 4}
    schedule: {strategy: constant, rate: 20, max_concurrency: 4}
  - name: sync
    base_url: %[3]s/v1
    model: sim-model
    readiness: {path: none}
    workload: {prompt_tokens: 8, output_tokens: 4}
    schedule: {strategy: synchronous}
  - name: replay
    base_url: %[4]s/v1
    model: sim-model
    readiness: {path: none}
    schedule: {strategy: trace, trace: {file: %[2]s, loop: true}}
`, chat.URL(), trace, sync.URL(), replay.URL())
	r := startRun(t, []string{"run", "--config", writeFile(t, "c.yml", cfg), "--listen-address", "127.0.0.1:0"}, nil)
	// A scrape reads one instrument after another while requests finish,
	// so it can catch a dispatch delay whose turn delays it read before
	// they were recorded: wait for a scrape in which they agree.
	var fams map[string]*dto.MetricFamily
	eventually(t, 30*time.Second, "6 successful requests per target, turn delays for each dispatch delay", func() bool {
		fams, _ = r.scrape(t)
		for _, name := range []string{"chat", "sync", "replay"} {
			if counter(fams, "llmprober_requests_total", map[string]string{"target": name, "outcome": "successful"}) < 6 {
				return false
			}
		}
		for _, name := range []string{"chat", "replay"} {
			if n, _, _, _ := delays(fams, name); n == 0 {
				return false
			}
		}
		return true
	})
	if err := r.stop(); !isCanceled(err) {
		t.Fatal(err)
	}
	checkChatTurns(t, fams)
	checkSynchronous(t, fams)
	checkReplay(t, fams)
	// Full history: turn 1 sends 16 words and gets 8 tokens; turn 2 sends
	// those, a stand-in reply of 8 words and 8 new words (32), gets 4;
	// turn 3 sends 32 + 4 + 8 = 44.
	checkSizes(t, "chat", chat.Requests(), map[[2]int]bool{{16, 8}: true, {32, 4}: true, {44, 4}: true})
	// The trace's rows: 12 and 20 prompt tokens with 6 output, 8 with 4.
	checkSizes(t, "replay", replay.Requests(), map[[2]int]bool{{12, 6}: true, {20, 6}: true, {8, 4}: true})
}

// checkSizes asserts that every logged request had one of the (prompt,
// output) sizes in want, and that each of them was seen.
func checkSizes(t *testing.T, name string, logs []sim.RequestLog, want map[[2]int]bool) {
	t.Helper()
	seen := map[[2]int]bool{}
	for _, l := range logs {
		size := [2]int{l.PromptTokens, l.OutputTokens}
		if !want[size] {
			t.Errorf("%s: a request of %d prompt and %d output tokens; want one of %v", name, size[0], size[1], want)
		}
		seen[size] = true
	}
	if len(seen) != len(want) {
		t.Errorf("%s: sizes seen %v, want all of %v", name, seen, want)
	}
}

// delays returns the count and sums of dispatch, predecessor and scheduling
// delay of target.
func delays(fams map[string]*dto.MetricFamily, target string) (n uint64, dispatch, predecessor, scheduling float64) {
	lbl := map[string]string{"target": target}
	n, dispatch = histogram(fams, "llmprober_dispatch_delay_seconds", lbl)
	np, predecessor := histogram(fams, "llmprober_turn_predecessor_delay_seconds", lbl)
	ns, scheduling := histogram(fams, "llmprober_turn_scheduling_delay_seconds", lbl)
	if np != n || ns != n {
		return 0, -1, -1, -1
	}
	return n, dispatch, predecessor, scheduling
}

// checkSplit asserts that the turn delays exist for every dispatch delay
// sample and add up to it.
func checkSplit(t *testing.T, fams map[string]*dto.MetricFamily, target string) (predecessor, scheduling float64) {
	t.Helper()
	n, dispatch, predecessor, scheduling := delays(fams, target)
	if n == 0 {
		t.Fatalf("%s: turn delays missing or not one per dispatch delay sample", target)
	}
	if math.Abs(predecessor+scheduling-dispatch) > 1e-6 {
		t.Errorf("%s: predecessor %v + scheduling %v != dispatch %v", target, predecessor, scheduling, dispatch)
	}
	return predecessor, scheduling
}

func checkChatTurns(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	lbl := map[string]string{"target": "chat"}
	// Turns 2 and 3 of each conversation think for 50 ms each.
	n, sum := histogram(fams, "llmprober_think_time_seconds", lbl)
	if n < 2 || math.Abs(sum-0.05*float64(n)) > 1e-9 {
		t.Errorf("think time: %d samples summing to %v, want at least 2 of 0.05 s", n, sum)
	}
	// A later turn's slot comes 50 ms after its predecessor's, which it
	// reaches only after the predecessor's ~15 ms plus 50 ms of think time:
	// think time runs past the target and shows as scheduling delay.
	_, scheduling := checkSplit(t, fams, "chat")
	if scheduling <= 0 {
		t.Errorf("chat: no scheduling delay although think time runs past the target")
	}
	gens, genSum := histogram(fams, "llmprober_generation_delay_seconds", lbl)
	if gens < 2 || genSum/float64(gens) > 0.1 {
		t.Errorf("generation delay: %d conversations, mean %v s; want at least 2, well under 0.1 s", gens, genSum/float64(gens))
	}
}

func checkSynchronous(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	lbl := map[string]string{"target": "sync"}
	for _, family := range []string{"llmprober_dispatch_delay_seconds", "llmprober_scheduled_latency_seconds",
		"llmprober_turn_predecessor_delay_seconds", "llmprober_turn_scheduling_delay_seconds", "llmprober_think_time_seconds"} {
		if n, _ := histogram(fams, family, lbl); n != 0 {
			t.Errorf("sync: %s has %d samples; a closed loop has no arrival schedule", family, n)
		}
	}
	// Without conversations there are no conversation series at all.
	for _, family := range []string{"llmprober_generation_delay_seconds", "llmprober_think_time_seconds"} {
		if hasSeries(fams, family, lbl) {
			t.Errorf("sync: %s has a series, but the target has no conversations", family)
		}
	}
}

func checkReplay(t *testing.T, fams map[string]*dto.MetricFamily) {
	t.Helper()
	// Turn 2 is due 1 ms after turn 1, which takes about 15 ms in the sim:
	// it waits for its predecessor.
	predecessor, _ := checkSplit(t, fams, "replay")
	if predecessor <= 0 {
		t.Errorf("replay: no predecessor delay although turn 2 is due before turn 1 ends")
	}
}

func TestCheckReportsTraceProblems(t *testing.T) {
	unsorted := writeFile(t, "unsorted.jsonl", "{\"timestamp\": 2, \"prompt_tokens\": 3, \"output_tokens\": 1}\n{\"timestamp\": 1, \"prompt_tokens\": 3, \"output_tokens\": 1}\n")
	cfg := writeFile(t, "c.yml", fmt.Sprintf(`targets:
  - name: replay
    base_url: http://127.0.0.1:1/v1
    model: m
    schedule: {strategy: trace, trace: {file: %s}}
  - name: turns
    base_url: http://127.0.0.1:1/v1
    model: m
    workload: {conversation: {turns: 0}}
    schedule: {strategy: poisson, rate: 0}
`, unsorted))
	var out, errOut strings.Builder
	err := Run(context.Background(), []string{"check", "--config", cfg}, &out, &errOut, nil)
	if code := exitCode(err); code != 2 {
		t.Fatalf("exit code %d, want 2 (err %v)", code, err)
	}
	text := fmt.Sprint(err)
	for _, want := range []string{
		"c.yml:5: targets[0].schedule.trace.file: " + unsorted + ":2: timestamp: timestamps are not sorted: 1s is earlier than 2s at line 1",
		"c.yml:9: targets[1].workload.conversation.turns: must be from 1 to 1000",
		"c.yml:10: targets[1].schedule.rate: must be > 0",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("check output lacks %q:\n%s", want, text)
		}
	}
}
