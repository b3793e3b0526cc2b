package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/caarlos0/env/v11"
)

// APIKeyVar is the conventional variable holding the API key of the target
// defined by the environment; it is used when neither LLMPROBER_API_KEY_ENV
// nor LLMPROBER_API_KEY_FILE is set.
const APIKeyVar = "LLMPROBER_API_KEY"

// Env is the configuration read from LLMPROBER_* environment variables. An
// unset or empty variable leaves its field at the zero value (Target.Name
// excepted).
type Env struct {
	// ConfigPath is the configuration file (LLMPROBER_CONFIG).
	ConfigPath string `env:"LLMPROBER_CONFIG"`
	// ListenAddress overrides Config.ListenAddress (LLMPROBER_LISTEN_ADDRESS).
	ListenAddress string `env:"LLMPROBER_LISTEN_ADDRESS"`
	// LogLevel overrides Config.LogLevel (LLMPROBER_LOG_LEVEL).
	LogLevel string `env:"LLMPROBER_LOG_LEVEL"`
	// Target is a single target defined by the environment.
	Target EnvTarget
	// TargetVars are the names of Target's variables that are set and
	// non-empty, sorted; empty when the environment defines no target.
	TargetVars []string `env:"-"`
	// APIKeySet reports whether LLMPROBER_API_KEY is set and non-empty; its
	// value is not kept here.
	APIKeySet bool `env:"-"`
	// Unknown lists the variables of the environment that begin with
	// LLMPROBER_ but are none of llmprober's (see KnownVars), sorted.
	// Resolve reports each as a problem unless a target's
	// auth.api_key_env names it.
	Unknown []string `env:"-"`
}

// TestEnv holds the variables that llmprober's own test suite and CI read
// (docs/development.md, "Tests"); the binary does not use them, but they are
// known, so that an environment that sets them is not rejected.
type TestEnv struct {
	// LlamaURL is the base URL of the llama-server the integration tests probe.
	LlamaURL string `env:"LLMPROBER_LLAMA_URL"`
	// RequireIntegration makes integration tests fail, not skip, when
	// what they need is missing.
	RequireIntegration bool `env:"LLMPROBER_REQUIRE_INTEGRATION"`
	// OTelCol is the OpenTelemetry Collector binary the OTLP integration
	// test runs.
	OTelCol string `env:"LLMPROBER_OTELCOL"`
}

// CommandEnv holds the variables the command line reads itself, as the
// defaults of its flags (run and check's --shard and --shards); they are
// known here so that setting them is not an error.
type CommandEnv struct {
	// Shard is the default of --shard.
	Shard string `env:"LLMPROBER_SHARD"`
	// Shards is the default of --shards.
	Shards string `env:"LLMPROBER_SHARDS"`
}

// envVarPrefix begins the name of every variable llmprober reads.
const envVarPrefix = "LLMPROBER_"

// KnownVars returns every LLMPROBER_* variable llmprober knows, sorted:
// those of the env tags of Env and of the structs it holds, APIKeyVar,
// and those of CommandEnv and TestEnv.
func KnownVars() []string {
	known := []string{APIKeyVar}
	for _, t := range []reflect.Type{reflect.TypeFor[Env](), reflect.TypeFor[CommandEnv](), reflect.TypeFor[TestEnv]()} {
		known = append(known, tagVars(t)...)
	}
	slices.Sort(known)
	return slices.Compact(known)
}

// tagVars returns the variables of the env tags of struct type t and of
// the structs of this package it holds.
func tagVars(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("env"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == t.PkgPath() {
			out = append(out, tagVars(f.Type)...)
		}
	}
	return out
}

// EnvTarget is a single target defined by environment variables; each field
// sets the Target field of the same meaning, whose path under the target its
// "config" tag names.
type EnvTarget struct {
	// URL is Target.BaseURL.
	URL string `env:"LLMPROBER_TARGET_URL" config:"base_url"`
	// Name is Target.Name; default "default".
	Name string `env:"LLMPROBER_TARGET_NAME" envDefault:"default" config:"name"`
	// Model is Target.Model.
	Model string `env:"LLMPROBER_MODEL" config:"model"`
	// API is Target.API.
	API string `env:"LLMPROBER_API" config:"api"`
	// Stream is Target.Stream.
	Stream bool `env:"LLMPROBER_STREAM" config:"stream"`
	// Timeout is Target.Timeout, a Go duration.
	Timeout time.Duration `env:"LLMPROBER_TIMEOUT" config:"timeout"`
	// Rate is Schedule.Rate, in requests per second.
	Rate float64 `env:"LLMPROBER_RATE" config:"schedule.rate"`
	// MaxConcurrency is Schedule.MaxConcurrency.
	MaxConcurrency int `env:"LLMPROBER_MAX_CONCURRENCY" config:"schedule.max_concurrency"`
	// MaxQueue is Schedule.MaxQueue.
	MaxQueue int `env:"LLMPROBER_MAX_QUEUE" config:"schedule.max_queue"`
	// Strategy is Schedule.Strategy.
	Strategy string `env:"LLMPROBER_STRATEGY" config:"schedule.strategy"`
	// Streams is Schedule.Streams.
	Streams int `env:"LLMPROBER_STREAMS" config:"schedule.streams"`
	// Rampup is Schedule.Rampup, a Go duration.
	Rampup time.Duration `env:"LLMPROBER_RAMPUP" config:"schedule.rampup"`
	// ErrorBackoff is Schedule.ErrorBackoff, a Go duration.
	ErrorBackoff time.Duration `env:"LLMPROBER_ERROR_BACKOFF" config:"schedule.error_backoff"`
	// ScheduleSeed is Schedule.Seed.
	ScheduleSeed int64 `env:"LLMPROBER_SCHEDULE_SEED" config:"schedule.seed"`
	// TraceFile is Trace.File.
	TraceFile string `env:"LLMPROBER_TRACE_FILE" config:"schedule.trace.file"`
	// TraceFormat is Trace.Format.
	TraceFormat string `env:"LLMPROBER_TRACE_FORMAT" config:"schedule.trace.format"`
	// TraceTimeScale is Trace.TimeScale.
	TraceTimeScale float64 `env:"LLMPROBER_TRACE_TIME_SCALE" config:"schedule.trace.time_scale"`
	// TraceLoop is Trace.Loop.
	TraceLoop bool `env:"LLMPROBER_TRACE_LOOP" config:"schedule.trace.loop"`
	// Turns is Conversation.Turns; setting it or the next two makes conversations.
	Turns int `env:"LLMPROBER_TURNS" config:"workload.conversation.turns"`
	// ThinkTime is Conversation.ThinkTime, a Go duration.
	ThinkTime time.Duration `env:"LLMPROBER_THINK_TIME" config:"workload.conversation.think_time"`
	// History is Conversation.History.
	History string `env:"LLMPROBER_HISTORY" config:"workload.conversation.history"`
	// PromptTokens is a fixed Workload.PromptTokens, in tokens.
	PromptTokens int `env:"LLMPROBER_PROMPT_TOKENS" config:"workload.prompt_tokens"`
	// OutputTokens is a fixed Workload.OutputTokens, in tokens.
	OutputTokens int `env:"LLMPROBER_OUTPUT_TOKENS" config:"workload.output_tokens"`
	// IgnoreEOS is Workload.IgnoreEOS.
	IgnoreEOS bool `env:"LLMPROBER_IGNORE_EOS" config:"workload.ignore_eos"`
	// Tag is Target.Tag.
	Tag string `env:"LLMPROBER_TAG" config:"tag"`
	// APIKeyFile is Auth.APIKeyFile.
	APIKeyFile string `env:"LLMPROBER_API_KEY_FILE" config:"auth.api_key_file"`
	// APIKeyEnv is Auth.APIKeyEnv: the name of a variable holding the key.
	APIKeyEnv string `env:"LLMPROBER_API_KEY_ENV" config:"auth.api_key_env"`
	// ReadinessPath is Readiness.Path.
	ReadinessPath string `env:"LLMPROBER_READINESS_PATH" config:"readiness.path"`
	// TLSCAFile is TLS.CAFile.
	TLSCAFile string `env:"LLMPROBER_TLS_CA_FILE" config:"tls.ca_file"`
	// TLSInsecureSkipVerify is TLS.InsecureSkipVerify.
	TLSInsecureSkipVerify bool `env:"LLMPROBER_TLS_INSECURE_SKIP_VERIFY" config:"tls.insecure_skip_verify"`
	EnvObjective
}

// EnvObjective is the single objective set of the environment's target;
// setting any of its variables defines it.
type EnvObjective struct {
	// SLOName is Objective.Name; default "default".
	SLOName string `env:"LLMPROBER_SLO_NAME" config:"objectives[0].name"`
	// SLOTTFT is Objective.TTFT, a Go duration.
	SLOTTFT time.Duration `env:"LLMPROBER_SLO_TTFT" config:"objectives[0].ttft"`
	// SLOTTFOT is Objective.TTFOT, a Go duration.
	SLOTTFOT time.Duration `env:"LLMPROBER_SLO_TTFOT" config:"objectives[0].ttfot"`
	// SLOITL is Objective.ITL, a Go duration.
	SLOITL time.Duration `env:"LLMPROBER_SLO_ITL" config:"objectives[0].itl"`
	// SLOTPOT is Objective.TPOT, a Go duration.
	SLOTPOT time.Duration `env:"LLMPROBER_SLO_TPOT" config:"objectives[0].tpot"`
	// SLOLatency is Objective.Latency, a Go duration.
	SLOLatency time.Duration `env:"LLMPROBER_SLO_LATENCY" config:"objectives[0].latency"`
	// SLOScheduledLatency is Objective.ScheduledLatency, a Go duration.
	SLOScheduledLatency time.Duration `env:"LLMPROBER_SLO_SCHEDULED_LATENCY" config:"objectives[0].scheduled_latency"`
	// SLOAttainment is Objective.Attainment, a ratio in (0, 1).
	SLOAttainment float64 `env:"LLMPROBER_SLO_ATTAINMENT" config:"objectives[0].attainment"`
	// SLOPeriod is Objective.Period, such as "30d".
	SLOPeriod Period `env:"LLMPROBER_SLO_PERIOD" config:"objectives[0].period"`
}

// FromEnv reads the LLMPROBER_* variables from environ (name → value); a nil
// environ means the process environment. A value that does not parse is
// reported as Errors naming the variable; when the environment defines a
// target (and names no config file), the problems Resolve would find with
// the other variables follow, so that one report names every bad variable.
// The Env returned with an error holds the values that parsed.
func FromEnv(environ map[string]string) (Env, error) {
	if environ == nil {
		environ = env.ToMap(os.Environ())
	}
	var e Env
	err := env.ParseWithOptions(&e, env.Options{Environment: environ})
	for _, name := range envVars(reflect.TypeFor[EnvTarget]()) {
		if environ[name] != "" {
			e.TargetVars = append(e.TargetVars, name)
		}
	}
	slices.Sort(e.TargetVars)
	e.APIKeySet = environ[APIKeyVar] != ""
	known := KnownVars()
	for _, name := range slices.Sorted(maps.Keys(environ)) {
		if strings.HasPrefix(name, envVarPrefix) && !slices.Contains(known, name) {
			e.Unknown = append(e.Unknown, name)
		}
	}
	if err != nil {
		return e, append(e.unknownErrors([]string{e.Target.APIKeyEnv}), e.withTargetProblems(envErrors(err))...)
	}
	return e, nil
}

// CheckUnknown returns the problems of e.Unknown, as Errors, or nil when
// there is none; keyVars are variables that hold API keys (named by
// auth.api_key_env), which are not unknown.
func (e Env) CheckUnknown(keyVars []string) error { return e.unknownErrors(keyVars).orNil() }

// sloVarPrefix begins the name of every variable of EnvObjective.
const sloVarPrefix = "LLMPROBER_SLO_"

// unknownErrors reports each variable of e.Unknown not in keyVars, naming
// the nearest known one, or for a misspelt threshold every variable of the
// objective set, so that no setting is silently left out.
func (e Env) unknownErrors(keyVars []string) Errors {
	var errs Errors
	for _, name := range e.Unknown {
		if slices.Contains(keyVars, name) {
			continue
		}
		errs = append(errs, &FieldError{Path: name, Msg: unknownMessage(name)})
	}
	return errs
}

// unknownMessage says what is wrong with the unknown variable name: the
// known variable it spells in other case, else for a misspelt threshold
// every variable of the objective set, else the nearest known variable.
// Case is ignored in the comparisons, since the known names are all upper
// case.
func unknownMessage(name string) string {
	upper := strings.ToUpper(name)
	nearest := nearestVar(upper)
	switch {
	case nearest == upper:
		return fmt.Sprintf("unknown variable (did you mean %s? variable names are case-sensitive)", nearest)
	case strings.HasPrefix(upper, sloVarPrefix):
		slo := slices.Sorted(maps.Values(envVars(reflect.TypeFor[EnvObjective]())))
		return "unknown variable; the objective set's variables are " + strings.Join(slo, ", ")
	}
	return fmt.Sprintf("unknown variable (did you mean %s?)", nearest)
}

// nearestVar returns the variable of KnownVars nearest to name in edit
// distance (the first in order among the nearest), TestEnv's left out.
func nearestVar(name string) string {
	test := tagVars(reflect.TypeFor[TestEnv]())
	best, bestDist := "", -1
	for _, k := range KnownVars() {
		if d := editDistance(name, k); !slices.Contains(test, k) && (bestDist < 0 || d < bestDist) {
			best, bestDist = k, d
		}
	}
	return best
}

// withTargetProblems returns the variables' parse errors followed by the
// problems with the environment's target, when it defines one and names no
// config file. Variables that did not parse are not reported again.
func (e Env) withTargetProblems(parseErrs Errors) Errors {
	if len(e.TargetVars) == 0 || e.ConfigPath != "" {
		return parseErrs
	}
	c := e.config()
	for _, fe := range parseErrs {
		for path, name := range c.src.labels {
			if name == fe.Path {
				c.src.broken[path] = true
			}
		}
	}
	c.overrideFromEnv(e)
	return c.problems(parseErrs, true)
}

// envVars maps the field names of struct type t, and of the structs it
// embeds, to their variables.
func envVars(t reflect.Type) map[string]string {
	vars := map[string]string{}
	for _, f := range envFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("env"), ","); name != "" && name != "-" {
			vars[f.Name] = name
		}
	}
	return vars
}

// envFields lists the fields of struct type t with those of its embedded
// structs in their place.
func envFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, envFields(f.Type)...)
			continue
		}
		out = append(out, f)
	}
	return out
}

// envErrors turns the environment parser's error into Errors naming each
// variable.
func envErrors(err error) Errors {
	vars := envVars(reflect.TypeFor[Env]())
	for field, name := range envVars(reflect.TypeFor[EnvTarget]()) {
		vars[field] = name
	}
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return Errors{{Msg: err.Error()}}
	}
	errs := make(Errors, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			errs = append(errs, &FieldError{Path: vars[pe.Name], Msg: parseErrorMsg(pe)})
			continue
		}
		errs = append(errs, &FieldError{Msg: e.Error()})
	}
	return errs
}

// parseErrorMsg says what a variable's value must be, quoting what it was.
func parseErrorMsg(pe env.ParseError) string {
	want := "valid"
	switch {
	case pe.Type == durationType:
		want = `a duration with a unit, such as "30s" or "1m30s"`
	case pe.Type.Kind() == reflect.Bool:
		want = "true or false"
	case pe.Type.Kind() == reflect.Int:
		want = "an integer"
	case pe.Type.Kind() == reflect.Float64:
		want = "a number"
	case pe.Type == reflect.TypeFor[Period]():
		return fmt.Sprintf("%v", pe.Err)
	}
	var ne *strconv.NumError
	if errors.As(pe.Err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return fmt.Sprintf("is out of range %s", got(ne.Num))
	}
	if errors.As(pe.Err, &ne) {
		return fmt.Sprintf("must be %s %s", want, got(ne.Num))
	}
	if v, ok := quotedIn(pe.Err.Error()); ok {
		return fmt.Sprintf("must be %s %s", want, got(v))
	}
	return fmt.Sprintf("must be %s", want)
}

// got says what a rejected value was, "(got "5x")", or how long it was
// when quote's rule hides it.
func got(v string) string {
	if q := quote(v); strings.HasPrefix(q, `"`) {
		return "(got " + q + ")"
	}
	return fmt.Sprintf("(%d characters, not shown)", utf8.RuneCountInString(v))
}

// quotedIn returns the last Go-quoted string in msg (the value a parser
// such as time.ParseDuration quotes at the end of its error: unknown unit
// "x" in duration "5x"), so that it can be quoted again under quote's rule
// instead of printed as the parser did.
func quotedIn(msg string) (string, bool) {
	value, found := "", false
	for i := strings.IndexByte(msg, '"'); i >= 0; {
		prefix, err := strconv.QuotedPrefix(msg[i:])
		if err != nil {
			break
		}
		if v, err := strconv.Unquote(prefix); err == nil {
			value, found = v, true
		}
		rest := msg[i+len(prefix):]
		j := strings.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		i += len(prefix) + j
	}
	return value, found
}
