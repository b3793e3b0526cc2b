package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/llmprober/llmprober/probe/clock"
)

// Defaults applied by New to fields left at zero.
const (
	// DefaultOutputTokens is the output length of a request that sets no maximum.
	DefaultOutputTokens = 16
	// DefaultMaxOutputTokens caps every request's output length.
	DefaultMaxOutputTokens = 4096
	// DefaultModel is the model name the server reports.
	DefaultModel = "sim-model"
)

// Latency is a delay drawn uniformly in [Mean−Jitter, Mean+Jitter] for each
// draw, and never negative (a draw below zero is zero).
type Latency struct {
	// Mean is the centre of the distribution.
	Mean time.Duration
	// Jitter is the half-width of the distribution; 0 makes every draw Mean.
	Jitter time.Duration
}

// Config sets the simulated endpoint's behaviour. The zero value is a valid
// configuration: no latency, no faults, 16 output tokens, model "sim-model".
type Config struct {
	// TTFT is the delay from the request's arrival to its first token, drawn
	// once per request.
	TTFT Latency
	// ITL is the delay between consecutive tokens, drawn once per token gap.
	ITL Latency
	// PrefillPerToken is added to the drawn TTFT once per word of the prompt;
	// 0 makes the prompt length irrelevant.
	PrefillPerToken time.Duration
	// OutputTokens is the output length of a request that sets neither
	// max_tokens nor max_completion_tokens; 0 means DefaultOutputTokens.
	OutputTokens int
	// MaxOutputTokens caps every request's output length; 0 means
	// DefaultMaxOutputTokens.
	MaxOutputTokens int
	// ReasoningTokens is how many of a chat request's tokens (the first ones)
	// are sent as reasoning_content before the visible content; 0 sends none.
	// The completions API has no reasoning and ignores it.
	ReasoningTokens int
	// Faults maps each fault to its probability per request, in [0, 1].
	// Faults are tried in the order of Faults(), so when the probabilities add
	// up to more than 1 the later ones are chosen less often than asked.
	// Absent or nil: no random faults (the X-Sim-Fault header still works).
	Faults map[Fault]float64
	// Seed seeds the random choices (faults, latencies, words). Requests
	// issued one after another to servers with the same Seed and Config get
	// the same choices. 0 is an ordinary seed.
	Seed int64
	// ReadyAfter is how long after New /health and /v1/models answer 503
	// before they answer 200; 0 makes the server ready at once.
	ReadyAfter time.Duration
	// Model is the model name listed by /v1/models and reported in responses
	// to requests that name no model; empty means DefaultModel.
	Model string
	// Realtime sets the realtime WebSocket endpoint (GET /v1/realtime).
	Realtime RealtimeConfig
}

// Validate reports the first invalid field: a negative duration or count, or
// a fault that is unknown or whose probability is outside [0, 1].
func (c Config) Validate() error {
	durations := []struct {
		name string
		d    time.Duration
	}{
		{"ttft.mean", c.TTFT.Mean}, {"ttft.jitter", c.TTFT.Jitter},
		{"itl.mean", c.ITL.Mean}, {"itl.jitter", c.ITL.Jitter},
		{"prefill_per_token", c.PrefillPerToken}, {"ready_after", c.ReadyAfter},
		{"realtime.delta_latency.mean", c.Realtime.DeltaLatency.Mean},
		{"realtime.delta_latency.jitter", c.Realtime.DeltaLatency.Jitter},
	}
	for _, d := range durations {
		if d.d < 0 {
			return fmt.Errorf("could not validate %s: negative duration %s", d.name, d.d)
		}
	}
	counts := []struct {
		name string
		n    int
	}{
		{"output_tokens", c.OutputTokens}, {"max_output_tokens", c.MaxOutputTokens},
		{"reasoning_tokens", c.ReasoningTokens},
	}
	for _, n := range counts {
		if n.n < 0 {
			return fmt.Errorf("could not validate %s: negative count %d", n.name, n.n)
		}
	}
	return validateFaults(c.Faults)
}

func validateFaults(faults map[Fault]float64) error {
	for f, p := range faults {
		if !f.valid() {
			return fmt.Errorf("could not validate faults: %w %q", errUnknownFault, string(f))
		}
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("could not validate faults: probability %v of %s is outside [0, 1]", p, f)
		}
	}
	return nil
}

var errUnknownFault = errors.New("unknown fault")

// withDefaults fills the zero fields with their defaults and clamps invalid
// values (negative durations and counts to 0, probabilities into [0, 1],
// unknown faults dropped), so that New never fails.
func (c Config) withDefaults() Config {
	for _, d := range []*time.Duration{
		&c.TTFT.Mean, &c.TTFT.Jitter, &c.ITL.Mean, &c.ITL.Jitter,
		&c.PrefillPerToken, &c.ReadyAfter, &c.Realtime.DeltaLatency.Mean, &c.Realtime.DeltaLatency.Jitter,
	} {
		*d = max(*d, 0)
	}
	if c.Realtime.Clock == nil {
		c.Realtime.Clock = clock.Real()
	}
	if c.OutputTokens <= 0 {
		c.OutputTokens = DefaultOutputTokens
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = DefaultMaxOutputTokens
	}
	c.OutputTokens = min(c.OutputTokens, c.MaxOutputTokens)
	c.ReasoningTokens = max(c.ReasoningTokens, 0)
	if c.Model == "" {
		c.Model = DefaultModel
	}
	faults := make(map[Fault]float64, len(c.Faults))
	for f, p := range c.Faults {
		if f.valid() && p > 0 {
			faults[f] = min(p, 1)
		}
	}
	c.Faults = faults
	return c
}

// DemoConfig returns settings that look like a small production model: TTFT
// 150 ms ± 60 ms plus 0.2 ms per prompt word, ITL 25 ms ± 10 ms, 64 output
// tokens by default, realtime deltas 120 ms ± 40 ms after their audio
// chunk, and a fault on about 4% of the requests, spread over every kind
// (0.5% each).
func DemoConfig() Config {
	faults := make(map[Fault]float64, len(Faults()))
	for _, f := range Faults() {
		faults[f] = 0.005
	}
	return Config{
		TTFT:            Latency{Mean: 150 * time.Millisecond, Jitter: 60 * time.Millisecond},
		ITL:             Latency{Mean: 25 * time.Millisecond, Jitter: 10 * time.Millisecond},
		PrefillPerToken: 200 * time.Microsecond,
		OutputTokens:    64,
		Faults:          faults,
		Seed:            1,
		Model:           DefaultModel,
		Realtime:        RealtimeConfig{DeltaLatency: Latency{Mean: 120 * time.Millisecond, Jitter: 40 * time.Millisecond}},
	}
}
