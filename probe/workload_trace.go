package probe

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/llmprober/llmprober/probe/trace"
)

// ReplayWorkload is the workload of a replayed trace: request n is row
// n mod R of the R rows, with a synthetic prompt of the row's prompt length
// (a unique random prefix, then common words; the trace holds no text) and
// the row's output length forced. A row's prompt length is its whole
// context: no history is added to later turns. Rows with a conversation id
// are turns of that conversation, each sent only after the one before it has
// ended, and in later passes of a looping replay the id gets the suffix
// "#<pass>" so that passes do not chain. Trace replay sets no think time.
type ReplayWorkload struct {
	rows  []trace.Request
	first []bool // the row begins its conversation (or has none)
	last  []bool // no later row of its conversation follows

	mu    sync.Mutex
	rng   *rand.Rand
	nonce nonce
}

// NewReplayWorkload returns the workload of tr, seeding the prompts with seed.
func NewReplayWorkload(tr *trace.Trace, seed uint64) (*ReplayWorkload, error) {
	if tr == nil || len(tr.Requests) == 0 {
		return nil, errors.New("could not replay trace: it holds no requests")
	}
	w := &ReplayWorkload{
		rows:  tr.Requests,
		first: make([]bool, len(tr.Requests)),
		last:  make([]bool, len(tr.Requests)),
		rng:   newRand(seed),
		nonce: newNonce(),
	}
	lastRow := map[string]int{}
	for i, r := range tr.Requests {
		w.first[i], w.last[i] = true, true
		if r.ConversationID == "" {
			continue
		}
		if j, ok := lastRow[r.ConversationID]; ok {
			w.first[i], w.last[j] = false, false
		}
		lastRow[r.ConversationID] = i
	}
	return w, nil
}

// Turn implements Workload.
func (w *ReplayWorkload) Turn(n uint64, _ int) Turn {
	rows := uint64(len(w.rows))
	pass, i := n/rows, n%rows
	row := w.rows[i]
	w.mu.Lock()
	text := promptText(w.rng, w.nonce, max(row.PromptTokens, prefixWords+1))
	w.mu.Unlock()
	req := &Request{
		Seq:             n,
		Messages:        []Message{{Role: "user", Content: text}},
		PromptTokens:    max(row.PromptTokens, prefixWords+1),
		MaxOutputTokens: row.OutputTokens,
	}
	t := Turn{Request: req, First: w.first[i], Last: w.last[i]}
	if row.ConversationID != "" {
		req.ConversationID, req.Turn = row.ConversationID, row.Turn
		if pass > 0 {
			req.ConversationID += "#" + strconv.FormatUint(pass, 10)
		}
		t.Relative = !w.first[i]
	}
	return t
}
