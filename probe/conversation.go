package probe

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// History says which earlier turns a later turn of a conversation sends.
type History string

// History modes.
const (
	// HistoryFull sends every earlier turn that succeeded (the user message
	// and a stand-in for the reply), then the new user message.
	HistoryFull History = "full"
	// HistoryLastTurn sends the previous turn (when it succeeded), then the
	// new user message.
	HistoryLastTurn History = "last_turn"
	// HistoryNewPrompt sends only the new user message.
	HistoryNewPrompt History = "new_prompt"
)

// Histories lists the history modes.
var Histories = []History{HistoryFull, HistoryLastTurn, HistoryNewPrompt}

// MaxTurns is the largest number of turns of a conversation.
const MaxTurns = 1000

// ConversationConfig configures a Conversations workload.
type ConversationConfig struct {
	// Turns is the number of turns of every conversation; 1 to MaxTurns.
	Turns int
	// ThinkTime is the least time between the end of a turn and the start of
	// the next; ≥ 0.
	ThinkTime time.Duration
	// History says what a later turn sends; empty means HistoryFull.
	History History
	// FirstPrompt and FirstOutput draw the first turn's user message length
	// and forced output length, in tokens; required.
	FirstPrompt, FirstOutput Sampler
	// Prompt and Output draw the same for every later turn; nil means
	// FirstPrompt and FirstOutput.
	Prompt, Output Sampler
	// Seed seeds every draw.
	Seed uint64
}

// Conversations is a workload of multi-turn conversations. Each stream of
// the strategy (Decision.Stream) carries one conversation at a time: the
// stream's requests are the conversation's turns in order, then the turns of
// a new conversation. Under an open-loop strategy there is one stream, so
// conversations follow one another: slot n carries turn n mod N + 1 of
// conversation ⌊n/N⌋ for N turns.
//
// Each turn is planned when its slot comes: its user message (with its own
// unique random prefix) and its output length are drawn from the
// conversation's own generator, seeded when the conversation begins, so a
// conversation's turns do not depend on how streams interleave. The time the
// first turn takes is the conversation's generation delay. A later turn's
// messages are completed just before it is sent, from the earlier turns that
// succeeded. The server's reply text is not kept: the history holds a
// stand-in assistant message of as many words as the reply had output tokens
// (at most the turn's forced output length), so the prompt grows as it would
// with the real reply. A conversation keeps only the history its mode sends.
type Conversations struct {
	cfg ConversationConfig

	mu      sync.Mutex
	rng     *rand.Rand
	nonce   nonce                 // mixed into every prompt's prefix
	count   uint64                // conversations begun so far
	streams map[int]*conversation // the open conversation of each stream
}

// conversation is one open conversation. draw, next and last are touched by
// Turn only (under Conversations.mu); reply and history by prepare only,
// which the prober calls for one turn at a time, in turn order.
type conversation struct {
	id      string
	mode    History
	draw    *rand.Rand // user messages and output lengths
	next    int        // turns handed out so far
	last    sent       // the latest turn handed out
	reply   *rand.Rand // stand-in replies
	history []exchange // earlier turns that succeeded, as far as mode sends them
}

// sent is what a later turn needs of its predecessor: its user message and
// forced output length.
type sent struct {
	user   string
	output int
}

// exchange is one succeeded turn: its user message and the reply's stand-in.
type exchange struct {
	turn        int
	user, reply string
}

// NewConversations checks cfg and returns the workload.
func NewConversations(cfg ConversationConfig) (*Conversations, error) {
	if cfg.History == "" {
		cfg.History = HistoryFull
	}
	switch {
	case cfg.Turns < 1 || cfg.Turns > MaxTurns:
		return nil, fmt.Errorf("turns must be from 1 to %d, got %d", MaxTurns, cfg.Turns)
	case cfg.ThinkTime < 0:
		return nil, fmt.Errorf("think time must not be negative, got %v", cfg.ThinkTime)
	case cfg.History != HistoryFull && cfg.History != HistoryLastTurn && cfg.History != HistoryNewPrompt:
		return nil, fmt.Errorf("unknown history mode %q", cfg.History)
	case cfg.FirstPrompt == nil || cfg.FirstOutput == nil:
		return nil, fmt.Errorf("conversations need prompt and output samplers")
	}
	if cfg.Prompt == nil {
		cfg.Prompt = cfg.FirstPrompt
	}
	if cfg.Output == nil {
		cfg.Output = cfg.FirstOutput
	}
	return &Conversations{cfg: cfg, rng: newRand(cfg.Seed), nonce: newNonce(), streams: map[int]*conversation{}}, nil
}

// Turn implements Workload: the next turn of stream's conversation, or the
// first turn of a new one, planned now.
func (c *Conversations) Turn(n uint64, stream int) Turn {
	c.mu.Lock()
	conv := c.streams[stream]
	if conv == nil {
		conv = c.begin()
		c.streams[stream] = conv
	}
	k := conv.next
	prompt, output := c.cfg.Prompt, c.cfg.Output
	if k == 0 {
		prompt, output = c.cfg.FirstPrompt, c.cfg.FirstOutput
	}
	prev := conv.last
	cur := sent{output: max(output(conv.draw), 1)}
	cur.user = promptText(conv.draw, c.nonce, max(prompt(conv.draw), prefixWords+1))
	conv.last = cur
	conv.next++
	last := conv.next == c.cfg.Turns
	if last {
		delete(c.streams, stream)
	}
	c.mu.Unlock()

	req := &Request{Seq: n, ConversationID: conv.id, Turn: k + 1, MaxOutputTokens: cur.output}
	t := Turn{Request: req, First: k == 0, Last: last}
	if k == 0 {
		req.Messages = []Message{{Role: "user", Content: cur.user}}
		req.PromptTokens = countWords(req.Messages)
		return t
	}
	t.Think = c.cfg.ThinkTime
	t.Prepare = func(rec *Record) { conv.prepare(req, k, prev, cur.user, rec) }
	return t
}

// begin starts the next conversation; c.mu is held.
func (c *Conversations) begin() *conversation {
	conv := &conversation{
		id:    "c" + strconv.FormatUint(c.count, 10),
		mode:  c.cfg.History,
		draw:  newRand(c.rng.Uint64()),
		reply: newRand(c.rng.Uint64()),
	}
	c.count++
	return conv
}

// prepare sets the messages of turn k (0-based, k ≥ 1), whose own user
// message is user, once turn k−1 (prev) ended with rec (nil when it was
// dropped).
func (conv *conversation) prepare(req *Request, k int, prev sent, user string, rec *Record) {
	if rec != nil && rec.Outcome == Successful && conv.mode != HistoryNewPrompt {
		e := exchange{turn: k - 1, user: prev.user, reply: wordsText(conv.reply, min(max(rec.OutputTokens, 0), prev.output))}
		if conv.mode == HistoryLastTurn {
			conv.history = conv.history[:0]
		}
		conv.history = append(conv.history, e)
	}
	var earlier []exchange
	switch conv.mode {
	case HistoryFull:
		earlier = conv.history
	case HistoryLastTurn:
		if n := len(conv.history); n > 0 && conv.history[n-1].turn == k-1 {
			earlier = conv.history[n-1:]
		}
	}
	msgs := make([]Message, 0, 2*len(earlier)+1)
	for _, e := range earlier {
		msgs = append(msgs, Message{Role: "user", Content: e.user}, Message{Role: "assistant", Content: e.reply})
	}
	req.Messages = append(msgs, Message{Role: "user", Content: user})
	req.PromptTokens = countWords(req.Messages)
}

// countWords is the prompt length estimate of msgs: one token per word.
func countWords(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))
	}
	return n
}
