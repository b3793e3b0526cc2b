package probe

import (
	"cmp"
	cryptorand "crypto/rand"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"
)

// Sampler draws a token count (≥ 1) from a distribution.
type Sampler func(r *rand.Rand) int

// Fixed returns a Sampler that always draws n.
func Fixed(n int) Sampler { return func(*rand.Rand) int { return n } }

// Workload makes the requests of one target.
type Workload interface {
	// Turn returns request n's content (messages, token counts) and its place
	// in a conversation; stream is the strategy's stream of the request
	// (Decision.Stream). The prober fills in Seq and the timing fields. The
	// prober calls Turn from one goroutine at a time, in order of n.
	Turn(n uint64, stream int) Turn
}

// Turn is one request of a workload with its place in a conversation.
// Single-turn requests are conversations of one turn: First and Last, no
// conversation id.
type Turn struct {
	// Request is the request to send.
	Request *Request
	// First reports that the request begins a conversation; the time the
	// workload took to make it is then the conversation's generation delay.
	First bool
	// Last reports that no later turn of the conversation follows.
	Last bool
	// Think is the think time: a later turn is not sent before its
	// predecessor ended plus Think. 0 for a first turn.
	Think time.Duration
	// Relative moves the targeted start with the prior turn (trace replay):
	// it becomes the prior turn's request start plus the gap between the two
	// slot times, when that is later than the request's own slot time.
	Relative bool
	// Prepare, when set, is called once the conversation's previous turn has
	// ended and before this turn is sent, with the previous turn's record (nil
	// when it was dropped unsent); it completes Request (the history).
	Prepare func(prev *Record)
}

// Synthetic is a workload of single-turn synthetic prompts. Each prompt begins
// with a unique random prefix, so a server's prefix cache cannot make TTFT
// look better than users see it, followed by common words up to the drawn
// prompt length (about one token per word). The seed makes the lengths and
// the words reproducible, never the prefix: a nonce of the workload's own
// is mixed into it, so two targets with one seed, or a workload made anew
// (a restarted prober), send other prefixes.
type Synthetic struct {
	mu     sync.Mutex
	rng    *rand.Rand
	nonce  nonce
	prompt Sampler
	output Sampler
}

// NewSynthetic returns a synthetic workload drawing prompt and output lengths
// in tokens from the two samplers, seeded with seed.
func NewSynthetic(prompt, output Sampler, seed uint64) *Synthetic {
	return &Synthetic{rng: newRand(seed), nonce: newNonce(), prompt: prompt, output: output}
}

// prefixWords is the length of the unique prefix, counted as prompt words.
const prefixWords = 2

// Request returns request n: a prompt of the drawn length and the drawn
// output length.
func (s *Synthetic) Request(n uint64) *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	promptTokens := max(s.prompt(s.rng), prefixWords+1)
	return &Request{
		Seq:             n,
		Messages:        []Message{{Role: "user", Content: promptText(s.rng, s.nonce, promptTokens)}},
		PromptTokens:    promptTokens,
		MaxOutputTokens: max(s.output(s.rng), 1),
	}
}

// Turn implements Workload: every request is a conversation of one turn.
func (s *Synthetic) Turn(n uint64, _ int) Turn {
	return Turn{Request: s.Request(n), First: true, Last: true}
}

// nonce is mixed into every prompt's unique prefix. Each workload draws its
// own from the operating system's random source when it is made, so that
// prefixes differ between the targets of one run (even with one seed) and
// between runs, while a fixed seed repeats the lengths and the words.
type nonce [8]byte

// newNonce returns 8 random bytes from crypto/rand, which never fails.
func newNonce() nonce {
	var n nonce
	_, _ = cryptorand.Read(n[:])
	return n
}

// promptText returns a prompt of about tokens tokens (at least prefixWords
// + 1): "probe", a unique hex id (the seeded draw XOR the workload's
// nonce: unique within the workload as the draw is, different from every
// other workload's), then common words.
func promptText(rng *rand.Rand, n nonce, tokens int) string {
	var id [8]byte
	for i := range id {
		id[i] = byte(rng.UintN(256)) ^ n[i]
	}
	var b strings.Builder
	b.Grow(len("probe ") + hex.EncodedLen(len(id)) + (tokens-prefixWords)*(maxWordBytes+1))
	var hexID [2 * len(id)]byte
	hex.Encode(hexID[:], id[:])
	b.WriteString("probe ")
	b.Write(hexID[:])
	for i := prefixWords; i < tokens; i++ {
		b.WriteByte(' ')
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// maxWordBytes is the length of the longest of words.
var maxWordBytes = len(slices.MaxFunc(words, func(a, b string) int { return cmp.Compare(len(a), len(b)) }))

// wordsText returns n common words separated by spaces (n ≥ 0).
func wordsText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()
}

// newRand returns the package's seeded generator.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// words are short, common English words that most tokenizers encode as one token each.
var words = strings.Fields(`the of and to in is was for on are with as at be by this from
or have an they which one you were all we when there can been has more if will would
about their what out so up said time into some them other than then now only its over
new also after use two how our work first well way even because any these give day most
us good long make made see need find back take come think look want year help line
tell very small large little great right old big high place where same end home hand
water light house world play part city story under name know keep start show every near
land read left late run open seem turn real life few north south east west sea tree`)
