package config

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe"
)

// Values of Schedule.Strategy besides StrategyConstant.
const (
	// StrategySynchronous sends one request at a time (closed loop).
	StrategySynchronous = "synchronous"
	// StrategyConcurrent keeps Schedule.Streams streams busy (closed loop).
	StrategyConcurrent = "concurrent"
	// StrategyThroughput keeps Schedule.MaxConcurrency requests in flight.
	StrategyThroughput = "throughput"
	// StrategyPoisson sends requests as a Poisson process at Schedule.Rate.
	StrategyPoisson = "poisson"
	// StrategyTrace replays Schedule.Trace.
	StrategyTrace = "trace"
)

// Strategies lists every value of Schedule.Strategy.
var Strategies = []string{StrategySynchronous, StrategyConcurrent, StrategyThroughput, StrategyConstant, StrategyPoisson, StrategyTrace}

// Values of Conversation.History.
const (
	// HistoryFull sends every earlier turn that succeeded.
	HistoryFull = "full"
	// HistoryLastTurn sends the previous turn when it succeeded.
	HistoryLastTurn = "last_turn"
	// HistoryNewPrompt sends only the new user message.
	HistoryNewPrompt = "new_prompt"
)

// histories lists the values of Conversation.History.
var histories = []string{HistoryFull, HistoryLastTurn, HistoryNewPrompt}

// Limits of the strategy and conversation settings.
const (
	// LimitStreams bounds Schedule.Streams, the prober's bound.
	LimitStreams = probe.MaxStreams
	// LimitRampup bounds Schedule.Rampup.
	LimitRampup = 24 * time.Hour
	// LimitTimeScale bounds Trace.TimeScale.
	LimitTimeScale = 1e6
	// LimitTurns bounds Conversation.Turns: the most a conversation of the
	// workload holds.
	LimitTurns = probe.MaxTurns
	// LimitThinkTime bounds Conversation.ThinkTime.
	LimitThinkTime = 24 * time.Hour
	// LimitErrorBackoff bounds Schedule.ErrorBackoff.
	LimitErrorBackoff = time.Hour
)

// DefaultTimeScale is Trace.TimeScale's default.
const DefaultTimeScale = 1.0

// DefaultErrorBackoff is Schedule.ErrorBackoff's default under the
// closed-loop strategies: the strategies' own.
const DefaultErrorBackoff = probe.DefaultErrorBackoff

// Trace is the trace the trace strategy replays.
type Trace struct {
	// File is the trace file; required by the trace strategy. Read when the
	// configuration is checked and when probing starts. Load makes a
	// relative name relative to the configuration file's directory.
	File string `yaml:"file"`
	// Format is jsonl or azure_csv. Default: azure_csv for a ".csv" file,
	// jsonl otherwise.
	Format string `yaml:"format"`
	// TimeScale multiplies every timestamp: 2 replays at half speed, 0.5 at
	// double speed. Check rejects a scale at which the trace's mean rate
	// exceeds LimitRate. Default 1.
	TimeScale float64 `yaml:"time_scale"`
	// Loop replays the trace again from its start after its last request
	// (at once when no row has a timestamp); otherwise the target stops
	// sending. Default false.
	Loop bool `yaml:"loop"`
}

// Conversation makes every request a turn of a multi-turn conversation.
type Conversation struct {
	// Turns is the number of turns of each conversation, 1 to LimitTurns;
	// required. With History full, Turns × (prompt + output tokens), at
	// their max, must not exceed LimitTokens.
	Turns int `yaml:"turns"`
	// ThinkTime is the least time between the end of a turn and the start of
	// the next. Default 0.
	ThinkTime time.Duration `yaml:"think_time"`
	// History is what a later turn sends: full (every earlier turn that
	// succeeded), last_turn, or new_prompt (only its own message). Default full.
	History string `yaml:"history"`
	// PromptTokens is the length of each later turn's new user message.
	// Default: Workload.PromptTokens, which sets the first turn's.
	PromptTokens Distribution `yaml:"prompt_tokens"`
	// OutputTokens is the output length of each later turn. Default:
	// Workload.OutputTokens, which sets the first turn's.
	OutputTokens Distribution `yaml:"output_tokens"`
}

// usesRate reports whether the strategy paces requests at Schedule.Rate.
func usesRate(strategy string) bool {
	return strategy == StrategyConstant || strategy == StrategyPoisson
}

// closedLoop reports whether the strategy sends each stream's next request
// when its last one ends, and so pauses after an error.
func closedLoop(strategy string) bool {
	return strategy == StrategySynchronous || strategy == StrategyConcurrent || strategy == StrategyThroughput
}

// applyDefaults fills the unset trace settings.
func (t *Trace) applyDefaults(path string, set func(string) bool) {
	if t.TimeScale == 0 && !set(path+".time_scale") {
		t.TimeScale = DefaultTimeScale
	}
}

// applyDefaults fills the unset conversation settings. Unset later-turn
// sizes stay unset: they follow the workload's.
func (c *Conversation) applyDefaults(path string, set func(string) bool) {
	if c.History == "" {
		c.History = HistoryFull
	}
	for _, d := range []struct {
		d    *Distribution
		path string
	}{{&c.PromptTokens, path + ".prompt_tokens"}, {&c.OutputTokens, path + ".output_tokens"}} {
		if *d.d != (Distribution{}) || set(d.path) {
			d.d.applyDefaults(0, d.path, set)
		}
	}
}

// notUsed records that the setting at path does not apply to strategy.
func notUsed(col *collector, path, strategy string) {
	col.add(path, "is not used by strategy %s", strategy)
}

// notUsedBecause records that the setting at path does not apply to
// strategy, and why.
func notUsedBecause(col *collector, path, strategy, why string) {
	col.add(path, "is not used by strategy %s: %s", strategy, why)
}

// validateStrategy records the problems with the strategy and the settings
// that depend on it: rate, streams, rampup, seed and trace.
func (s *Schedule) validateStrategy(col *collector, path string) {
	if !slices.Contains(Strategies, s.Strategy) {
		col.add(path+".strategy", "unknown strategy %s (supported: %s)", quote(s.Strategy), strings.Join(Strategies, ", "))
		return
	}
	set := col.src.isSet
	switch {
	case usesRate(s.Strategy):
		s.validateRate(col, path+".rate")
	case s.Rate != 0 || set(path+".rate"):
		notUsed(col, path+".rate", s.Strategy)
	}
	s.validateStreams(col, path+".streams")
	switch {
	case s.Strategy != StrategyConstant && s.Strategy != StrategyConcurrent:
		if s.Rampup != 0 || set(path+".rampup") {
			notUsed(col, path+".rampup", s.Strategy)
		}
	case s.Rampup < 0:
		col.add(path+".rampup", "must be >= 0")
	case s.Rampup > LimitRampup:
		col.add(path+".rampup", "must be at most %v", LimitRampup)
	}
	if s.Strategy != StrategyPoisson && (s.Seed != 0 || set(path+".seed")) {
		notUsed(col, path+".seed", s.Strategy)
	}
	s.validateCapacity(col, path)
	s.validateErrorBackoff(col, path+".error_backoff")
	s.Trace.validate(col, path+".trace", s.Strategy)
}

// validateCapacity records the concurrency settings the strategy does not
// use: synchronous has one request at a time, and each stream of throughput
// has its own slot, so that none ever queues.
func (s *Schedule) validateCapacity(col *collector, path string) {
	set := col.src.isSet
	switch s.Strategy {
	case StrategySynchronous:
		for _, key := range []string{".max_concurrency", ".max_queue"} {
			if set(path + key) {
				notUsedBecause(col, path+key, s.Strategy, "it sends one request at a time")
			}
		}
	case StrategyThroughput:
		if set(path + ".max_queue") {
			notUsedBecause(col, path+".max_queue", s.Strategy, "each of its streams has a concurrency slot")
		}
	}
}

// validateErrorBackoff checks the pause of a closed-loop stream after an error.
func (s *Schedule) validateErrorBackoff(col *collector, path string) {
	switch {
	case !closedLoop(s.Strategy):
		if s.ErrorBackoff != 0 || col.src.isSet(path) {
			notUsedBecause(col, path, s.Strategy, "only synchronous, concurrent and throughput pause after an error")
		}
	case s.ErrorBackoff < 0:
		col.add(path, "must be >= 0")
	case s.ErrorBackoff > LimitErrorBackoff:
		col.add(path, "must be at most %v", LimitErrorBackoff)
	}
}

// validateRate checks a rate strategy's rate.
func (s *Schedule) validateRate(col *collector, path string) {
	switch {
	case math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0):
		col.add(path, "must be a finite number")
	case s.Rate > LimitRate:
		col.add(path, "must be at most %d requests per second", LimitRate)
	default:
		positive(col, path, s.Rate)
	}
}

// validateStreams checks the concurrent strategy's streams: every stream's
// request must find a concurrency slot or a place in the queue, or it would
// be dropped and sent again at once.
func (s *Schedule) validateStreams(col *collector, path string) {
	set := col.src.isSet(path)
	queue := 0
	if s.MaxQueue != nil {
		queue = *s.MaxQueue
	}
	switch {
	case s.Strategy != StrategyConcurrent:
		if s.Streams != 0 || set {
			notUsed(col, path, s.Strategy)
		}
	case s.Streams == 0 && !set:
		col.add(path, "required by strategy %s: the number of streams, >= 1", StrategyConcurrent)
	case s.Streams < 1:
		col.add(path, "must be >= 1")
	case s.Streams > LimitStreams:
		col.add(path, "must be at most %d", LimitStreams)
	case s.MaxConcurrency >= 1 && queue >= 0 && s.Streams > s.MaxConcurrency+queue:
		col.add(path, "must be at most max_concurrency + max_queue (%d): each stream's request needs a slot or a place in the queue",
			s.MaxConcurrency+queue)
	}
}

// validate records the trace settings' problems; path locates them.
func (t *Trace) validate(col *collector, path, strategy string) {
	if strategy != StrategyTrace {
		for _, f := range []struct {
			key  string
			zero bool
		}{{"file", t.File == ""}, {"format", t.Format == ""}, {"time_scale", t.TimeScale == 0}, {"loop", !t.Loop}} {
			if p := path + "." + f.key; !f.zero || col.src.isSet(p) {
				notUsed(col, p, strategy)
			}
		}
		return
	}
	if t.File == "" {
		col.add(path+".file", "required by strategy %s", StrategyTrace)
	}
	if t.Format != "" && !slices.Contains(traceFormats, t.Format) {
		col.add(path+".format", "unknown format %s (supported: %s)", quote(t.Format), strings.Join(traceFormats, ", "))
	}
	switch {
	case math.IsNaN(t.TimeScale) || math.IsInf(t.TimeScale, 0):
		col.add(path+".time_scale", "must be a finite number")
	case t.TimeScale > LimitTimeScale:
		col.add(path+".time_scale", "must be at most %g", float64(LimitTimeScale))
	default:
		positive(col, path+".time_scale", t.TimeScale)
	}
}

// validateForStrategy records the workload settings that do not fit the
// strategy: a trace gives each request's sizes and conversations itself.
func (w *Workload) validateForStrategy(col *collector, path, strategy string) {
	if w.Conversation != nil {
		if strategy == StrategyTrace {
			col.add(path+".conversation", "cannot be used with strategy %s: the trace's conversation_id and turn make conversations", StrategyTrace)
		} else {
			w.Conversation.validate(col, path+".conversation")
			w.validateContext(col, path+".conversation.turns")
		}
	}
	if strategy != StrategyTrace {
		return
	}
	for _, p := range []string{path + ".prompt_tokens", path + ".output_tokens"} {
		if col.src.isSet(p) {
			col.add(p, "is not used by strategy %s: the trace gives each request's token counts", StrategyTrace)
		}
	}
}

// validate records the conversation's problems.
func (c *Conversation) validate(col *collector, path string) {
	switch {
	case c.Turns == 0 && !col.src.isSet(path+".turns"):
		col.add(path+".turns", "required: the number of turns, from 1 to %d", LimitTurns)
	case c.Turns < 1 || c.Turns > LimitTurns:
		col.add(path+".turns", "must be from 1 to %d", LimitTurns)
	case c.Turns == 1:
		c.validateOneTurn(col, path)
		return
	}
	switch {
	case c.ThinkTime < 0:
		col.add(path+".think_time", "must be >= 0")
	case c.ThinkTime > LimitThinkTime:
		col.add(path+".think_time", "must be at most %v", LimitThinkTime)
	}
	if !slices.Contains(histories, c.History) {
		col.add(path+".history", "unknown history %s (supported: %s)", quote(c.History), strings.Join(histories, ", "))
	}
	if c.PromptTokens != (Distribution{}) || col.src.isSet(path+".prompt_tokens") {
		c.PromptTokens.validate(col, path+".prompt_tokens")
	}
	if c.OutputTokens != (Distribution{}) || col.src.isSet(path+".output_tokens") {
		c.OutputTokens.validate(col, path+".output_tokens")
	}
}

// validateOneTurn records the later-turn settings of a conversation of one
// turn, which has none.
func (c *Conversation) validateOneTurn(col *collector, path string) {
	set := col.src.isSet
	for _, f := range []struct {
		key  string
		zero bool
	}{
		{"think_time", c.ThinkTime == 0},
		{"history", true}, // always filled by its default
		{"prompt_tokens", c.PromptTokens == (Distribution{})},
		{"output_tokens", c.OutputTokens == (Distribution{})},
	} {
		if p := path + "." + f.key; !f.zero || set(p) {
			col.add(p, "is not used with turns: 1: a conversation of one turn has no later turn")
		}
	}
}

// validateContext records a conversation with full history whose last turn
// could carry more than LimitTokens: every turn's prompt and output at their
// maximum. Nothing is recorded while a count it needs is itself invalid.
func (w *Workload) validateContext(col *collector, path string) {
	c := w.Conversation
	if c.History != HistoryFull || c.Turns < 2 || c.Turns > LimitTurns {
		return
	}
	laterPrompt, laterOutput := c.PromptTokens, c.OutputTokens
	if laterPrompt == (Distribution{}) {
		laterPrompt = w.PromptTokens
	}
	if laterOutput == (Distribution{}) {
		laterOutput = w.OutputTokens
	}
	var most [4]int64
	for i, d := range []Distribution{w.PromptTokens, w.OutputTokens, laterPrompt, laterOutput} {
		if d.Max < 1 || d.Max > LimitTokens {
			return
		}
		most[i] = int64(d.Max)
	}
	total := most[0] + most[1] + int64(c.Turns-1)*(most[2]+most[3])
	if total > LimitTokens {
		col.add(path, "with history %s, the last turn's context can reach %d tokens (turns × (prompt + output tokens), at their max), "+
			"more than %d: lower turns or the token counts, or use history %s or %s", HistoryFull, total, LimitTokens, HistoryLastTurn, HistoryNewPrompt)
	}
}

// checkRate records a trace replayed faster than LimitRate on average: its
// timestamped rows ÷ (one pass × TimeScale), where a pass is the trace's
// Period. A trace that does not loop is sent once, so its pass counts as at
// least 1 s: a short burst of up to LimitRate rows is accepted. path locates
// the trace settings.
func (t *Trace) checkRate(col *collector, path string, rows int, pass time.Duration) {
	if rows == 0 || !(t.TimeScale > 0) || math.IsInf(t.TimeScale, 0) {
		return
	}
	span := pass.Seconds() * t.TimeScale
	if !t.Loop {
		span = max(span, 1)
	}
	rate := float64(rows) / span
	switch {
	case rate <= LimitRate:
	case pass <= 0:
		col.add(path+".file", "trace %s has %d timestamped rows, all at 0: more than %d at once; spread their timestamps",
			t.File, rows, LimitRate)
	default:
		least := ceilDigits(float64(rows)/(LimitRate*pass.Seconds()), 5)
		col.add(path+".time_scale", "is too small: trace %s would be replayed at a mean %.5g requests per second "+
			"(%d timestamped rows in a pass of %v × %g), more than %d; use at least %g", t.File, rate, rows, pass, t.TimeScale, LimitRate, least)
	}
}

// ceilDigits rounds x > 0 up to the given number of significant digits,
// ignoring a relative excess below 10⁻⁹ (floating-point noise).
func ceilDigits(x float64, digits int) float64 {
	scale := math.Pow(10, float64(digits-1)-math.Floor(math.Log10(x)))
	return math.Ceil(x*scale*(1-1e-9)) / scale
}

// resolveTraceFiles makes every relative trace file name relative to dir,
// the configuration file's directory, as Prometheus does for rule files.
func (c *Config) resolveTraceFiles(dir string) {
	for i := range c.Targets {
		if f := &c.Targets[i].Schedule.Trace.File; *f != "" && !filepath.IsAbs(*f) {
			*f = filepath.Join(dir, *f)
		}
	}
}
