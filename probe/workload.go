package probe

import (
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"sync"
)

// Sampler draws a token count (≥ 1) from a distribution.
type Sampler func(r *rand.Rand) int

// Fixed returns a Sampler that always draws n.
func Fixed(n int) Sampler { return func(*rand.Rand) int { return n } }

// Workload makes the requests of one target.
type Workload interface {
	// Request returns request n's content (Seq, messages, token counts); the
	// prober fills in the timing fields.
	Request(n uint64) *Request
}

// Synthetic is a workload of single-turn synthetic prompts. Each prompt begins
// with a unique random prefix, so a server's prefix cache cannot make TTFT
// look better than users see it, followed by common words up to the drawn
// prompt length (about one token per word).
type Synthetic struct {
	mu     sync.Mutex
	rng    *rand.Rand
	prompt Sampler
	output Sampler
}

// NewSynthetic returns a synthetic workload drawing prompt and output lengths
// in tokens from the two samplers, seeded with seed.
func NewSynthetic(prompt, output Sampler, seed uint64) *Synthetic {
	return &Synthetic{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), prompt: prompt, output: output}
}

// prefixWords is the length of the unique prefix, counted as prompt words.
const prefixWords = 2

// Request implements Workload.
func (s *Synthetic) Request(n uint64) *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	promptTokens := max(s.prompt(s.rng), prefixWords+1)
	var id [8]byte
	for i := range id {
		id[i] = byte(s.rng.UintN(256))
	}
	var b strings.Builder
	b.WriteString("probe ")
	b.WriteString(hex.EncodeToString(id[:]))
	for i := prefixWords; i < promptTokens; i++ {
		b.WriteByte(' ')
		b.WriteString(words[s.rng.IntN(len(words))])
	}
	return &Request{
		Seq:             n,
		Messages:        []Message{{Role: "user", Content: b.String()}},
		PromptTokens:    promptTokens,
		MaxOutputTokens: max(s.output(s.rng), 1),
	}
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
