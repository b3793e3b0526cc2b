package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Overrides are the settings given on the command line; an empty field was
// not given. Problems with an overridden value name it as, for example,
// "listen_address (flag)".
type Overrides struct {
	// ConfigPath is the --config flag.
	ConfigPath string
	// ListenAddress overrides Config.ListenAddress.
	ListenAddress string
	// LogLevel overrides Config.LogLevel.
	LogLevel string
	// ConfigData, when not nil, is the contents of the configuration file
	// (ConfigPath, else Env.ConfigPath), already read with ReadFile: it is
	// decoded instead of reading the file again, so that a reload hashes
	// and parses the same bytes.
	ConfigData []byte
}

// Resolve builds the configuration from a file or from the environment, then
// applies defaults and validates it. The targets come either from the file
// named by flags.ConfigPath (else e.ConfigPath) or from the single target of
// e; both at once, or neither, is an error. The global settings are taken
// from the flag, else the environment, else the file, else the default.
// Problems with values from the environment name the variable, and so
// does a problem with an unknown LLMPROBER_* variable (Env.Unknown) that no
// target's auth.api_key_env names. When the configuration is invalid, the
// error lists every problem: those Load finds, and those Check finds; a
// valid configuration still needs Check.
func Resolve(e Env, flags Overrides) (*Config, error) {
	c, found, err := base(e, flags)
	unknown := e.unknownErrors(keyVars(c))
	switch {
	case err != nil && len(unknown) > 0:
		return nil, append(unknown, &FieldError{Msg: err.Error()})
	case err != nil:
		return nil, err
	case c == nil:
		return nil, append(unknown, found.sorted()...)
	}
	c.overrideFromEnv(e)
	c.override(&c.ListenAddress, "listen_address", flags.ListenAddress, "listen_address (flag)")
	c.override(&c.LogLevel, "log_level", flags.LogLevel, "log_level (flag)")
	return c.finish(append(unknown, found...), true)
}

// keyVars returns the variables that the targets of c name as holding
// their API keys; none when c is nil.
func keyVars(c *Config) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, t := range c.Targets {
		if t.Auth.APIKeyEnv != "" {
			out = append(out, t.Auth.APIKeyEnv)
		}
	}
	return out
}

// overrideFromEnv sets the global settings given by the environment.
func (c *Config) overrideFromEnv(e Env) {
	c.override(&c.ListenAddress, "listen_address", e.ListenAddress, "LLMPROBER_LISTEN_ADDRESS")
	c.override(&c.LogLevel, "log_level", e.LogLevel, "LLMPROBER_LOG_LEVEL")
}

// base returns the undefaulted configuration of the file or of the
// environment's target, and the problems with the file's shape; the
// configuration is nil when the file could not be decoded at all.
func base(e Env, flags Overrides) (*Config, Errors, error) {
	path, from := flags.ConfigPath, "--config"
	if path == "" {
		path, from = e.ConfigPath, "LLMPROBER_CONFIG"
	}
	switch {
	case path != "" && len(e.TargetVars) > 0:
		return nil, nil, fmt.Errorf("a config file (%s from %s) and a target from the environment (%s) cannot be used together; unset one",
			path, from, strings.Join(e.TargetVars, ", "))
	case path != "" && flags.ConfigData != nil:
		return loadData(path, flags.ConfigData)
	case path != "":
		return load(path)
	case len(e.TargetVars) > 0:
		return e.config(), nil, nil
	}
	return nil, nil, errors.New("no targets: set --config or LLMPROBER_TARGET_URL")
}

// override sets *field to value, when given, and records label as its source.
func (c *Config) override(field *string, path, value, label string) {
	if value == "" {
		return
	}
	*field = value
	c.src.label(path, label)
}

// config returns the undefaulted configuration of the environment's single
// target. Problems with it name the variables.
func (e Env) config() *Config {
	src := newSource("")
	src.env = true
	const path = "targets[0]"
	vars := envVars(reflect.TypeFor[EnvTarget]())
	for _, f := range envFields(reflect.TypeFor[EnvTarget]()) {
		p := joinPath(path, f.Tag.Get("config"))
		src.labels[p] = vars[f.Name]
		src.set[p] = slices.Contains(e.TargetVars, vars[f.Name])
	}
	et := e.Target
	target := Target{
		Name:      et.Name,
		BaseURL:   et.URL,
		Model:     et.Model,
		API:       et.API,
		Timeout:   et.Timeout,
		Tag:       et.Tag,
		Auth:      Auth{APIKeyEnv: et.APIKeyEnv, APIKeyFile: et.APIKeyFile},
		TLS:       TLS{CAFile: et.TLSCAFile, InsecureSkipVerify: et.TLSInsecureSkipVerify},
		Readiness: Readiness{Path: et.ReadinessPath},
		Workload:  Workload{IgnoreEOS: et.IgnoreEOS},
		Schedule: Schedule{Rate: et.Rate, MaxConcurrency: et.MaxConcurrency, Strategy: et.Strategy,
			Streams: et.Streams, Rampup: et.Rampup, Seed: et.ScheduleSeed, ErrorBackoff: et.ErrorBackoff,
			Trace: Trace{File: et.TraceFile, Format: et.TraceFormat, TimeScale: et.TraceTimeScale, Loop: et.TraceLoop}},
	}
	if src.set[path+".workload.conversation.turns"] || src.set[path+".workload.conversation.think_time"] ||
		src.set[path+".workload.conversation.history"] {
		target.Workload.Conversation = &Conversation{Turns: et.Turns, ThinkTime: et.ThinkTime, History: et.History}
		src.labels[path+".workload.conversation"] = vars["Turns"]
	}
	if src.set[path+".stream"] {
		target.Stream = &et.Stream
	}
	if src.set[path+".schedule.max_queue"] {
		target.Schedule.MaxQueue = &et.MaxQueue
	}
	if src.set[path+".workload.prompt_tokens"] {
		target.Workload.PromptTokens = Fixed(et.PromptTokens)
		src.fixed[path+".workload.prompt_tokens"] = true
	}
	if src.set[path+".workload.output_tokens"] {
		target.Workload.OutputTokens = Fixed(et.OutputTokens)
		src.fixed[path+".workload.output_tokens"] = true
	}
	if et.APIKeyEnv == "" && et.APIKeyFile == "" && e.APIKeySet {
		target.Auth.APIKeyEnv = APIKeyVar
		src.labels[path+".auth.api_key_env"] = APIKeyVar
	}
	target.Objectives = et.objectives(src, path+".objectives[0]")
	return &Config{Targets: []Target{target}, src: src}
}

// objectives returns the objective set its variables define, none when
// none is set; the name defaults to "default". Only the thresholds whose
// variables are set are configured.
func (o EnvObjective) objectives(src *source, path string) []Objective {
	set := func(key string) bool { return src.set[path+"."+key] }
	dur := func(key string, d time.Duration) *time.Duration {
		if !set(key) {
			return nil
		}
		return &d
	}
	obj := Objective{
		Name: o.SLOName, Period: o.SLOPeriod,
		TTFT: dur("ttft", o.SLOTTFT), TTFOT: dur("ttfot", o.SLOTTFOT), ITL: dur("itl", o.SLOITL),
		TPOT: dur("tpot", o.SLOTPOT), Latency: dur("latency", o.SLOLatency),
		ScheduledLatency: dur("scheduled_latency", o.SLOScheduledLatency),
	}
	if set("attainment") {
		obj.Attainment = &o.SLOAttainment
	}
	defined := set("name") || set("attainment") || set("period")
	for _, q := range Quantities {
		defined = defined || set(q)
	}
	if !defined {
		return nil
	}
	if obj.Name == "" {
		obj.Name = "default"
		src.labels[path+".name"] = "LLMPROBER_SLO_NAME"
	}
	src.labels[path] = "LLMPROBER_SLO_*"
	return []Objective{obj}
}
