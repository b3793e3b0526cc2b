package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// plan is everything decided about a request before its answer starts.
type plan struct {
	id      string
	api     string
	model   string
	created int64
	req     parsed

	n         int    // tokens to generate
	reasoning int    // how many of the first tokens are reasoning (chat only)
	finish    string // finish_reason: "length" when a maximum was given, else "stop"
	fault     Fault
	faultAt   int // tokens sent before a mid-stream fault strikes

	ttft time.Duration   // delay of the first token after Received
	at   []time.Duration // at[i]: delay of token i after Received
	text []string        // text[i]: the text of token i
}

// newPlan draws a request's latencies and words from rng.
func (s *Server) newPlan(id, api string, req parsed, fault Fault, rng *rand.Rand) *plan {
	p := &plan{
		id: id, api: api, model: req.model, created: time.Now().Unix(),
		req: req, fault: fault, finish: "stop", n: s.cfg.OutputTokens,
	}
	if p.model == "" {
		p.model = s.cfg.Model
	}
	if req.maxTokens != nil {
		p.n, p.finish = min(*req.maxTokens, s.cfg.MaxOutputTokens), "length"
	}
	if api == APIChat {
		p.reasoning = min(s.cfg.ReasoningTokens, p.n)
	}
	p.faultAt = faultAfterTokens(p.n)
	p.ttft = draw(rng, s.cfg.TTFT) + time.Duration(req.promptWords)*s.cfg.PrefillPerToken
	p.at = make([]time.Duration, p.n)
	p.text = make([]string, p.n)
	next := p.ttft
	for i := range p.n {
		if i > 0 {
			next += draw(rng, s.cfg.ITL)
		}
		p.at[i] = next
		p.text[i] = p.word(i, rng)
	}
	return p
}

// word returns token i's text: a word, with a leading space unless it opens
// the reasoning or the visible content of a chat answer.
func (p *plan) word(i int, rng *rand.Rand) string {
	w := vocabulary[rng.IntN(len(vocabulary))]
	if p.api == APIChat && (i == 0 || i == p.reasoning) {
		return w
	}
	return " " + w
}

// slot returns token i's delay after Received; past the last token (or with
// none) it is the TTFT, already past when the tokens were sent.
func (p *plan) slot(i int) time.Duration {
	if i < len(p.at) {
		return p.at[i]
	}
	return p.ttft
}

// last returns the delay of the last token, or the TTFT without tokens.
func (p *plan) last() time.Duration {
	if p.n == 0 {
		return p.ttft
	}
	return p.at[p.n-1]
}

// isReasoning reports whether token i is a reasoning token.
func (p *plan) isReasoning(i int) bool { return i < p.reasoning }

// midStream reports whether the plan's fault strikes inside the answer
// rather than replacing it.
func (p *plan) midStream() bool {
	switch p.fault {
	case FaultReset, FaultStall, FaultMalformed, FaultErrorEvent, FaultTruncated:
		return true
	}
	return false
}

// draw returns a delay uniform in [Mean−Jitter, Mean+Jitter], at least 0.
func draw(rng *rand.Rand, l Latency) time.Duration {
	if l.Jitter <= 0 {
		return l.Mean
	}
	d := l.Mean - l.Jitter + time.Duration(rng.Int64N(int64(2*l.Jitter)+1))
	return max(d, 0)
}

// newID returns the response id of the server's next request.
func (s *Server) newID(api string) string {
	prefix := "cmpl"
	switch api {
	case APIChat:
		prefix = "chatcmpl"
	case APIRealtime:
		prefix = "sess"
	}
	return fmt.Sprintf("%s-sim-%d", prefix, s.ids.Add(1))
}
