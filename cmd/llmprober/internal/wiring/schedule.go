package wiring

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe"
)

// newSchedule builds the strategy and the workload of t: synthetic requests,
// conversations, or the rows of a replayed trace. A seed of 0 in the
// configuration picks a random one.
func newSchedule(t *config.Target) (probe.Strategy, probe.Workload, error) {
	s := &t.Schedule
	seed := seedOr(t.Workload.Seed)
	if s.Strategy == config.StrategyTrace {
		return newReplay(t, seed)
	}
	strategy, err := newStrategy(s, t.Name)
	if err != nil {
		return nil, nil, err
	}
	workload, err := newWorkload(&t.Workload, seed)
	if err != nil {
		return nil, nil, err
	}
	return strategy, workload, nil
}

// newStrategy builds every strategy but trace replay; the open-loop ones
// of target name start at its spread phase (see spread).
func newStrategy(s *config.Schedule, name string) (probe.Strategy, error) {
	switch s.Strategy {
	case config.StrategySynchronous:
		return withBackoff(probe.NewSynchronous(), nil, s.ErrorBackoff)
	case config.StrategyConcurrent:
		c, err := probe.NewConcurrent(s.Streams, s.Rampup)
		return withBackoff(c, err, s.ErrorBackoff)
	case config.StrategyThroughput:
		c, err := probe.NewThroughput(s.MaxConcurrency)
		return withBackoff(c, err, s.ErrorBackoff)
	case config.StrategyConstant:
		c, err := probe.NewConstant(s.Rate, s.Rampup)
		return spread(c, err, name, s.Rate)
	case config.StrategyPoisson:
		p, err := probe.NewPoisson(s.Rate, seedOr(s.Seed))
		return spread(p, err, name, s.Rate)
	}
	return nil, fmt.Errorf("unknown strategy %q", s.Strategy)
}

// maxSpread bounds the interval over which spread spreads targets, and so
// the wait for a slow target's first request.
const maxSpread = time.Hour

// spread shifts open-loop strategy o of target name at rate requests per
// second by the target's phase within its first interval (1/rate, at most
// maxSpread), so that targets at one rate do not all send at once.
func spread(o probe.Strategy, err error, name string, rate float64) (probe.Strategy, error) {
	if err != nil {
		return nil, err
	}
	interval := time.Duration(min(float64(time.Second)/rate, float64(maxSpread)))
	return probe.Phased{Strategy: o, Phase: probe.SpreadPhase(name, interval)}, nil
}

// withBackoff sets the pause of closed-loop strategy c after an error.
func withBackoff(c *probe.Closed, err error, backoff time.Duration) (probe.Strategy, error) {
	if err != nil {
		return nil, err
	}
	c.SetErrorBackoff(backoff)
	return c, nil
}

// newWorkload builds single-turn synthetic requests or conversations.
func newWorkload(w *config.Workload, seed uint64) (probe.Workload, error) {
	if w.Conversation == nil {
		return probe.NewSynthetic(w.PromptTokens.Sample, w.OutputTokens.Sample, seed), nil
	}
	c := w.Conversation
	cfg := probe.ConversationConfig{
		Turns: c.Turns, ThinkTime: c.ThinkTime, History: probe.History(c.History),
		FirstPrompt: w.PromptTokens.Sample, FirstOutput: w.OutputTokens.Sample, Seed: seed,
	}
	if c.PromptTokens != (config.Distribution{}) {
		cfg.Prompt = c.PromptTokens.Sample
	}
	if c.OutputTokens != (config.Distribution{}) {
		cfg.Output = c.OutputTokens.Sample
	}
	return probe.NewConversations(cfg)
}

// newReplay builds the strategy and workload of t's decoded trace.
func newReplay(t *config.Target, seed uint64) (probe.Strategy, probe.Workload, error) {
	assets, err := t.Assets()
	if err != nil {
		return nil, nil, err
	}
	tr, tc := assets.Trace, &t.Schedule.Trace
	strategy, err := probe.NewReplay(tr, tc.TimeScale, tc.Loop)
	if err != nil {
		return nil, nil, err
	}
	workload, err := probe.NewReplayWorkload(tr, seed)
	if err != nil {
		return nil, nil, err
	}
	return strategy, workload, nil
}

// seedOr returns seed, or a random seed when it is 0.
func seedOr(seed int64) uint64 {
	if seed == 0 {
		return rand.Uint64()
	}
	return uint64(seed)
}
