package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/llmprober/llmprober/probe/api"
	"github.com/llmprober/llmprober/slo"
	"go.yaml.in/yaml/v3"
)

// Defaults and bounds of the objective sets.
const (
	// DefaultAttainment is Objective.Attainment's default.
	DefaultAttainment = 0.99
	// DefaultPeriod is Objective.Period's default: 30 days.
	DefaultPeriod = Period(30 * 24 * time.Hour)
	// MinPeriod is the shortest SLO period: the longest alert window (3 days).
	MinPeriod = Period(3 * 24 * time.Hour)
	// LimitPeriod is the longest SLO period: 366 days.
	LimitPeriod = Period(366 * 24 * time.Hour)
	// LimitObjectives bounds the objective sets of one target, which
	// multiplies the series of every SLO counter and gauge.
	LimitObjectives = 4
)

// Objective is one named objective set of a target: per-request thresholds
// (nil when not configured; at least one is required), the attainment the
// target should reach and the period over which it is measured. A request
// conforms when every configured quantity is at most its threshold.
type Objective struct {
	// Name identifies the objective set in metrics and rules: 1–64
	// characters of [A-Za-z0-9_.-], unique within the target. Required.
	Name string `yaml:"name"`
	// TTFT is the threshold on time to first token; streaming targets only.
	TTFT *time.Duration `yaml:"ttft"`
	// TTFOT is the threshold on time to first output token; streaming targets only.
	TTFOT *time.Duration `yaml:"ttfot"`
	// ITL is the threshold on the request's inter-token latency; streaming targets only.
	ITL *time.Duration `yaml:"itl"`
	// TPOT is the threshold on the request's time per output token.
	TPOT *time.Duration `yaml:"tpot"`
	// Latency is the threshold on request latency.
	Latency *time.Duration `yaml:"latency"`
	// ScheduledLatency is the threshold on scheduled latency; only under a
	// strategy with an arrival schedule (constant, poisson, trace).
	ScheduledLatency *time.Duration `yaml:"scheduled_latency"`
	// Attainment is the target ratio of conforming to evaluated requests,
	// in (0, 1). Default 0.99.
	Attainment *float64 `yaml:"attainment"`
	// Period is the SLO period, such as "30d" or "4w"; at least 3d (the
	// longest alert window), at most 366d. Default 30d.
	Period Period `yaml:"period"`
}

// Thresholds returns the configured thresholds by quantity key (the YAML
// name, such as "ttft"), in the fixed order of Quantities; absent keys
// were not configured.
func (o *Objective) Thresholds() map[string]time.Duration {
	m := map[string]time.Duration{}
	for _, q := range Quantities {
		if p := o.threshold(q); p != nil {
			m[q] = *p
		}
	}
	return m
}

// Quantities lists the keys of the per-request quantities an objective set
// may bound, in slo.Quantities' fixed order (the SLO domain's one list).
var Quantities = quantityKeys()

// quantityKeys returns the configuration keys of slo.Quantities.
func quantityKeys() []string {
	out := make([]string, len(slo.Quantities))
	for i, q := range slo.Quantities {
		out[i] = string(q)
	}
	return out
}

// threshold returns the field of quantity key q.
func (o *Objective) threshold(q string) *time.Duration {
	switch q {
	case "ttft":
		return o.TTFT
	case "ttfot":
		return o.TTFOT
	case "itl":
		return o.ITL
	case "tpot":
		return o.TPOT
	case "latency":
		return o.Latency
	case "scheduled_latency":
		return o.ScheduledLatency
	}
	return nil
}

// objectiveNullRejected reports whether a null at path is an objective set
// itself or its period or attainment, which must be left out rather than
// written as null to take the default.
func objectiveNullRejected(path string) (msg string, rejected bool) {
	if !strings.Contains(path, ".objectives[") {
		return "", false
	}
	switch {
	case strings.HasSuffix(path, "]"):
		return "must be an objective set, not null", true
	case strings.HasSuffix(path, ".period"):
		return `must be a period such as "30d", not null (leave it out for 30d)`, true
	case strings.HasSuffix(path, ".attainment"):
		return "must be a number such as 0.99, not null (leave it out for 0.99)", true
	}
	return "", false
}

// applyDefaults fills the objective set's unset settings; a period set to
// zero stays zero, for validation to reject.
func (o *Objective) applyDefaults(path string, set func(string) bool) {
	if o.Attainment == nil {
		v := DefaultAttainment
		o.Attainment = &v
	}
	if o.Period == 0 && !set(path+".period") {
		o.Period = DefaultPeriod
	}
}

// applyObjectiveDefaults fills the unset settings of every objective set.
func (t *Target) applyObjectiveDefaults(path string, set func(string) bool) {
	for i := range t.Objectives {
		t.Objectives[i].applyDefaults(fmt.Sprintf("%s.objectives[%d]", path, i), set)
	}
}

// validateObjectives records the problems of the target's objective sets,
// including quantities that cannot apply to the target.
func (t *Target) validateObjectives(col *collector, path string) {
	if len(t.Objectives) > LimitObjectives {
		col.add(path+".objectives", "must list at most %d objective sets", LimitObjectives)
	}
	names := map[string]int{}
	for i := range t.Objectives {
		o := &t.Objectives[i]
		p := path + ".objectives[" + strconv.Itoa(i) + "]"
		if first, dup := names[o.Name]; dup && o.Name != "" {
			col.add(p+".name", "duplicate objective set %s (also objectives[%d])", quote(o.Name), first)
		} else {
			names[o.Name] = i
		}
		o.validate(col, p)
		t.validateApplicable(col, p, o)
	}
}

// validate records the objective set's own problems.
func (o *Objective) validate(col *collector, path string) {
	switch {
	case o.Name == "":
		col.add(path+".name", "required")
	case !namePattern.MatchString(o.Name):
		col.add(path+".name", "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '.', '-'")
	}
	n := 0
	for _, q := range Quantities {
		if d := o.threshold(q); d != nil {
			n++
			if *d <= 0 {
				col.add(path+"."+q, "must be > 0")
			}
		}
	}
	if n == 0 {
		col.add(path, "must set at least one threshold (%s)", "ttft, ttfot, itl, tpot, latency or scheduled_latency")
	}
	if a := o.Attainment; a != nil && (math.IsNaN(*a) || *a <= 0 || *a >= 1) {
		col.add(path+".attainment", "must be between 0 and 1 (exclusive), such as 0.99")
	}
	if o.Period < MinPeriod || o.Period > LimitPeriod {
		col.add(path+".period", "must be between %s and %s (the longest alert window is 3d)", MinPeriod, LimitPeriod)
	}
}

// validateApplicable records thresholds on quantities the target can never
// measure: TTFT, TTFOT and ITL without streaming, scheduled latency without
// an arrival schedule.
func (t *Target) validateApplicable(col *collector, path string, o *Objective) {
	if t.Stream != nil && !*t.Stream {
		for _, q := range api.StreamedQuantities {
			if o.threshold(q) != nil {
				col.add(path+"."+q, "needs a streaming target (stream: true)")
			}
		}
	}
	if o.ScheduledLatency != nil && !HasArrivalSchedule(t.Schedule.Strategy) {
		col.add(path+".scheduled_latency", "needs a strategy with an arrival schedule (constant, poisson or trace), not %s", quote(t.Schedule.Strategy))
	}
}

// HasArrivalSchedule reports whether strategy gives each request a targeted
// start (the open-loop strategies constant, poisson and trace).
func HasArrivalSchedule(strategy string) bool {
	return strategy == StrategyConstant || strategy == StrategyPoisson || strategy == StrategyTrace
}

// Period is an SLO period. In YAML it is a Go duration ("720h") or a whole
// number of days or weeks ("30d", "4w").
type Period time.Duration

// String formats p in days when it is a whole number of days ("30d"),
// otherwise as a Go duration.
func (p Period) String() string {
	d := time.Duration(p)
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// periodSyntax matches a whole number of days or weeks.
var periodSyntax = regexp.MustCompile(`^([0-9]{1,5})([dw])$`)

// ParsePeriod parses "30d", "4w" or a Go duration such as "720h".
func ParsePeriod(s string) (Period, error) {
	if m := periodSyntax.FindStringSubmatch(s); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64) // at most 5 digits: cannot fail
		unit := 24 * time.Hour
		if m[2] == "w" {
			unit *= 7
		}
		return Period(time.Duration(n) * unit), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New(`invalid period: use days or weeks, such as "30d" or "4w", or a duration such as "720h"`)
	}
	return Period(d), nil
}

// UnmarshalText decodes a period string, as in an environment variable.
func (p *Period) UnmarshalText(b []byte) error {
	v, err := ParsePeriod(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// UnmarshalYAML decodes a period string.
func (p *Period) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParsePeriod(n.Value)
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// MarshalYAML encodes the period as String does.
func (p Period) MarshalYAML() (any, error) { return p.String(), nil }

// period checks n as a period string.
func (w *walker) period(n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		w.fail(n, path, `must be a period such as "30d", "4w" or "720h"`)
		return
	}
	v, err := ParsePeriod(n.Value)
	switch {
	case err != nil:
		w.fail(n, path, "%v", err)
	case v < MinPeriod || v > LimitPeriod:
		// Checked here too: an explicit 0 would otherwise read as unset.
		w.fail(n, path, "must be between %s and %s (the longest alert window is 3d)", MinPeriod, LimitPeriod)
	}
}
