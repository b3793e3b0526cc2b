package slo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// day is 24 hours.
const day = 24 * time.Hour

// RuleWindows are the windows of the error-ratio recording rules, besides
// each objective's period.
var RuleWindows = []time.Duration{5 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, day, 3 * day}

// BurnAlert is one long/short window pair of a multi-window burn-rate
// alert: it fires when both windows burn faster than Factor × the error
// budget (1 − attainment) and the short window holds at least the minimum
// number of evaluated requests.
type BurnAlert struct {
	// Severity is "page" or "ticket".
	Severity string
	// Long and Short are the two windows.
	Long, Short time.Duration
	// BudgetShare is the share of the period's error budget spent in Long
	// at the alert's burn rate.
	BudgetShare float64
}

// BurnAlerts are the alert window pairs: for a 30-day period they burn
// 14.4× (1h, 5m) and 6× (6h, 30m) for a page, 3× (1d, 2h) and 1× (3d, 6h)
// for a ticket.
var BurnAlerts = []BurnAlert{
	{"page", time.Hour, 5 * time.Minute, 0.02},
	{"page", 6 * time.Hour, 30 * time.Minute, 0.05},
	{"ticket", day, 2 * time.Hour, 0.10},
	{"ticket", 3 * day, 6 * time.Hour, 0.10},
}

// Factor is the burn-rate factor of a for an SLO period: budget share ×
// period ÷ long window (14.4 for 2% of 30 days in 1 hour).
func (a BurnAlert) Factor(period time.Duration) float64 {
	return a.BudgetShare * float64(period) / float64(a.Long)
}

// RuleObjective is one objective set as the rules see it: its name, the
// targets it applies to (empty for every target with an objective set of
// that name), its attainment and its period.
type RuleObjective struct {
	Name       string
	Targets    []string
	Attainment float64
	Period     time.Duration
}

// RuleOptions tunes the generated rules.
type RuleOptions struct {
	// MinRequests is the minimum number of evaluated requests in an alert's
	// short window; 0 for no minimum, never negative.
	MinRequests int
	// MaxDispatchDelay is the dispatch delay whose 99th percentile raises
	// the behind-schedule alert; it must be one of DispatchDelayBoundaries.
	// Default 1s.
	MaxDispatchDelay time.Duration
	// MinCoverage is the share of a burn-rate pair's long window that must
	// hold the target's data before the pair can fire (the young-prober
	// guard), in [0, 1]; 0 turns the guard off.
	MinCoverage float64
	// Job is a job label of llmprober's series (the scrape job, or
	// service.name over OTLP) that LLMProberDown also watches before any
	// replica of it ever reported: a scrape of it failing, or none of its
	// replicas reporting. Empty leaves those out; LLMProberDown's
	// job-agnostic parts (any job whose replicas reported in the last
	// StaleRange) stay.
	Job string
	// MaxReportAge is the oldest heartbeat (llmprober_collection_timestamp_seconds)
	// of a replica that still reports: it must exceed the OTLP export
	// interval plus the collector's scrape interval, and it is how long the
	// OTLP path takes to notice a dead replica. Whole seconds within
	// [MinReportAge, MaxMaxReportAge]; 0 means DefaultMaxReportAge.
	MaxReportAge time.Duration
}

// Bounds and default of RuleOptions.MaxReportAge.
const (
	DefaultMaxReportAge = 3 * time.Minute
	MinReportAge        = 30 * time.Second
	MaxMaxReportAge     = time.Hour
)

// Timing of the alerts of a dead prober. LLMProberDown and
// LLMProberReplicaMissing wait DownFor; LLMProberTargetStale waits
// StaleFor, longer by more than an evaluation interval, so that the alerts
// that inhibit it fire first. A replica count counts as the job's once it
// held for ReplicaSustain; LLMProberReplicaMissing compares the count with
// those of the last ReplicaLookback.
const (
	DownFor         = 2 * time.Minute
	StaleFor        = 5 * time.Minute
	ReplicaSustain  = 15 * time.Minute
	ReplicaLookback = time.Hour
)

// DefaultRuleOptions are the options of the committed rule files: at least
// 10 evaluated requests, dispatch delay 1s, half of each long window
// covered, job llmprober, heartbeats up to 3 minutes old.
func DefaultRuleOptions() RuleOptions {
	return RuleOptions{MinRequests: 10, MaxDispatchDelay: time.Second, MinCoverage: 0.5, Job: "llmprober",
		MaxReportAge: DefaultMaxReportAge}
}

// Errors of RuleOptions.
var (
	errNegativeMinRequests = errors.New("minimum requests must not be negative")
	errMinCoverage         = errors.New("minimum coverage must be within [0, 1]")
	errMaxReportAge        = fmt.Errorf("the oldest heartbeat of a replica that reports must be whole seconds from %v to %v",
		MinReportAge, MaxMaxReportAge)
)

// CoverageSteps is the number of evenly spaced instants of a long window
// at which the coverage rules look for the target's data.
const CoverageSteps = 60

// CoverageWindows are the long windows of BurnAlerts, in order, each once:
// the windows of the coverage recording rules.
func CoverageWindows() []time.Duration {
	var out []time.Duration
	for _, a := range BurnAlerts {
		if !slices.Contains(out, a.Long) {
			out = append(out, a.Long)
		}
	}
	return out
}

// staleRange is how long after its last sample a target counts as stale:
// the longest short window of BurnAlerts, which a decaying burn-rate alert
// can keep firing from, plus an hour.
func staleRange() time.Duration {
	var longest time.Duration
	for _, a := range BurnAlerts {
		longest = max(longest, a.Short)
	}
	return longest + time.Hour
}

// RuleObjectives groups the objective sets of targets (target name →
// objective sets) by name, attainment and period. A group that covers
// every target having an objective set of that name selects no target.
func RuleObjectives(targets map[string][]Objective) []RuleObjective {
	type key struct {
		name       string
		attainment float64
		period     time.Duration
	}
	byKey := map[key][]string{}
	byName := map[string]int{}
	for t, objs := range targets {
		for _, o := range objs {
			k := key{o.Name, o.Attainment, o.Period}
			byKey[k] = append(byKey[k], t)
			byName[o.Name]++
		}
	}
	out := make([]RuleObjective, 0, len(byKey))
	for k, ts := range byKey {
		slices.Sort(ts)
		r := RuleObjective{Name: k.name, Attainment: k.attainment, Period: k.period, Targets: ts}
		if len(ts) == byName[k.name] {
			r.Targets = nil
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b RuleObjective) int {
		return strings.Compare(a.Name+"\x00"+strings.Join(a.Targets, ","), b.Name+"\x00"+strings.Join(b.Targets, ","))
	})
	return out
}

// PromDuration formats d as a PromQL duration in its largest whole unit
// (d, h, m, s, ms).
func PromDuration(d time.Duration) string {
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{day, "d"}, {time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}} {
		if d%u.unit == 0 {
			return strconv.FormatInt(int64(d/u.unit), 10) + u.name
		}
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

// DispatchDelayBoundaries are the bucket boundaries of
// llmprober_dispatch_delay_seconds in seconds, ascending; they must match
// the exporter's (a test compares them with its exposition).
var DispatchDelayBoundaries = []float64{
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// errNotBoundary means a dispatch delay is not a bucket boundary.
var errNotBoundary = errors.New("not a bucket boundary of llmprober_dispatch_delay_seconds")

// CheckDispatchDelay returns an error listing the allowed values unless d
// is a bucket boundary of llmprober_dispatch_delay_seconds.
func CheckDispatchDelay(d time.Duration) error {
	if slices.Contains(DispatchDelayBoundaries, d.Seconds()) {
		return nil
	}
	allowed := make([]string, len(DispatchDelayBoundaries))
	for i, b := range DispatchDelayBoundaries {
		allowed[i] = time.Duration(b * float64(time.Second)).String()
	}
	return fmt.Errorf("%v: %w; use one of %s", d, errNotBoundary, strings.Join(allowed, ", "))
}

// LeMatcher returns a regular expression matching the le label of the
// bucket boundary v however it is written. Both the client library's text
// format and Prometheus 3 write it as Go's shortest 'g' form ("0.5",
// "0.0001", "1e-05"); Prometheus 3 adds ".0" to a whole number ("1.0").
func LeMatcher(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	re := regexp.QuoteMeta(s)
	if !strings.ContainsAny(s, ".e") {
		re += `(\.0)?`
	}
	return re
}

// promString quotes s as a PromQL string literal: Go's quoting, whose
// escapes PromQL shares for these label values.
func promString(s string) string { return strconv.Quote(s) }

// selector returns the label matchers of r: objective, and target when
// the group is limited to some targets.
func (r RuleObjective) selector() string {
	m := "objective=" + promString(r.Name)
	if len(r.Targets) > 0 {
		quoted := make([]string, len(r.Targets))
		for i, t := range r.Targets {
			quoted[i] = regexp.QuoteMeta(t)
		}
		m += ",target=~" + promString(strings.Join(quoted, "|"))
	}
	return m
}

// groupName returns the rule group name of r.
func (r RuleObjective) groupName() string {
	n := "llmprober-slo-" + r.Name
	if len(r.Targets) > 0 {
		n += "-" + strings.Join(r.Targets, "-")
	}
	return n
}

// ruleWindow is one window of the recording rules: its name ("5m") and
// its PromQL range ("[5m]").
type ruleWindow struct{ Name, Range string }

// alertPair is one long/short pair of a rendered burn-rate alert.
type alertPair struct {
	Long, Short, Threshold, Factor string
}

// coverageRule is one coverage recording rule: its window's name and the
// subquery step.
type coverageRule struct{ Window, Step string }

// groupData is what the template renders for one objective group.
type groupData struct {
	Name, Objective, Selector, Period string
	Windows                           []ruleWindow
	Page, Ticket                      []alertPair
	// Omitted describes the pairs left out because they can never fire.
	Omitted           []string
	MinRequests       int
	MinCoverage       string
	Attainment        string
	TicketDescription string
	// MaxAge is RuleOptions.MaxReportAge in seconds.
	MaxAge string
}

// newGroupData computes the rendered figures of r.
func newGroupData(r RuleObjective, opts RuleOptions) groupData {
	g := groupData{
		Name: r.groupName(), Objective: r.Name, Selector: r.selector(), Period: PromDuration(r.Period),
		MinRequests: opts.MinRequests, Attainment: formatFloat(r.Attainment), MaxAge: opts.maxAge(),
	}
	if opts.MinCoverage > 0 {
		g.MinCoverage = formatFloat(opts.MinCoverage)
	}
	windows := slices.Clone(RuleWindows)
	if !slices.Contains(windows, r.Period) {
		windows = append(windows, r.Period)
	}
	for _, w := range windows {
		n := PromDuration(w)
		g.Windows = append(g.Windows, ruleWindow{Name: n, Range: "[" + n + "]"})
	}
	budget := 1 - r.Attainment
	slowBurn := false
	for _, a := range BurnAlerts {
		f := a.Factor(r.Period)
		p := alertPair{Long: PromDuration(a.Long), Short: PromDuration(a.Short),
			Factor: formatFloat(f), Threshold: formatFloat(f * budget)}
		if f*budget >= 1 {
			g.Omitted = append(g.Omitted, fmt.Sprintf("%s pair %s/%s omitted: its threshold %s x %s = %s is not below 1, which an error ratio cannot exceed",
				a.Severity, p.Long, p.Short, p.Factor, formatFloat(budget), p.Threshold))
			continue
		}
		if a.Severity == "page" {
			g.Page = append(g.Page, p)
		} else {
			g.Ticket = append(g.Ticket, p)
			slowBurn = slowBurn || f < 1
		}
	}
	g.TicketDescription = g.ticketDescription(slowBurn)
	return g
}

// ticketDescription describes the ticket alert of g. A factor below 1 does
// not exhaust the budget within the period, so then it states the budget
// share spent over the long window instead.
func (g groupData) ticketDescription(slowBurn bool) string {
	head := fmt.Sprintf("Objective set %q (attainment %s over %s) ", g.Objective, g.Attainment, g.Period)
	if !slowBurn {
		return head + "is losing its error budget fast enough to exhaust it before the period ends."
	}
	parts := make([]string, len(g.Ticket))
	for i, p := range g.Ticket {
		parts[i] = fmt.Sprintf("over %s above %s times the ratio its budget allows", p.Long, p.Factor)
	}
	return head + "has an error ratio " + strings.Join(parts, ", or ") +
		": at that rate each such window spends 10% of the error budget of the period."
}

// UnreachableAlerts lists, for each objective group, the burn-rate alert
// pairs that Rules leaves out because factor × (1 − attainment) ≥ 1: an
// error ratio cannot exceed it. Each entry names the group and the pair.
func UnreachableAlerts(objectives []RuleObjective) []string {
	var out []string
	for _, r := range objectives {
		g := newGroupData(r, RuleOptions{})
		for _, o := range g.Omitted {
			out = append(out, fmt.Sprintf("objective set %q (rule group %s): %s", r.Name, g.Name, o))
		}
	}
	return out
}

// formatFloat formats v with at most 6 significant decimals, so that
// 14.4 × 0.01 prints as 0.144, not 0.14400000000000002.
func formatFloat(v float64) string {
	return strconv.FormatFloat(mustParse(strconv.FormatFloat(v, 'g', 10, 64)), 'f', -1, 64)
}

// mustParse parses a float formatted by strconv.
func mustParse(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(fmt.Sprintf("could not parse %q: %v", s, err))
	}
	return v
}

// Rules renders the Prometheus rule file for objectives: one group of
// recording rules and burn-rate alerts per objective group, and one group
// of health alerts that say when the numbers cannot be trusted. It fails
// when opts.MaxDispatchDelay is not a bucket boundary or opts.MinRequests
// is negative.
func Rules(objectives []RuleObjective, opts RuleOptions) ([]byte, error) {
	if err := opts.check(); err != nil {
		return nil, fmt.Errorf("could not render rules: %w", err)
	}
	if opts.MaxReportAge == 0 {
		opts.MaxReportAge = DefaultMaxReportAge
	}
	data := struct {
		Groups                        []groupData
		Coverage                      []coverageRule
		CoverageSteps                 int
		MaxDelay, LeMatch, StaleRange string
		MinFailures                   string
		MaxDelayHuman, Job            string
		MaxAge, MaxAgeHuman           string
		DownFor, ReplicaFor, StaleFor string
		Sustain, Lookback             string
	}{MaxDelay: formatFloat(opts.MaxDispatchDelay.Seconds()), LeMatch: LeMatcher(opts.MaxDispatchDelay.Seconds()),
		MinFailures: "> 0", MaxDelayHuman: opts.MaxDispatchDelay.String(), Job: opts.Job,
		CoverageSteps: CoverageSteps, StaleRange: PromDuration(staleRange()),
		MaxAge: opts.maxAge(), MaxAgeHuman: PromDuration(opts.MaxReportAge),
		DownFor: PromDuration(DownFor), ReplicaFor: PromDuration(DownFor), StaleFor: PromDuration(StaleFor),
		Sustain: PromDuration(ReplicaSustain), Lookback: PromDuration(ReplicaLookback)}
	if opts.MinRequests > 0 {
		data.MinFailures = ">= " + strconv.Itoa(opts.MinRequests)
	}
	for _, w := range CoverageWindows() {
		data.Coverage = append(data.Coverage, coverageRule{Window: PromDuration(w), Step: PromDuration(w / CoverageSteps)})
	}
	for _, r := range objectives {
		data.Groups = append(data.Groups, newGroupData(r, opts))
	}
	var buf bytes.Buffer
	if err := rulesTemplate.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("could not render rules: %w", err)
	}
	return buf.Bytes(), nil
}

// maxAge is o.MaxReportAge (DefaultMaxReportAge when 0) in seconds.
func (o RuleOptions) maxAge() string {
	if o.MaxReportAge == 0 {
		o.MaxReportAge = DefaultMaxReportAge
	}
	return strconv.FormatInt(int64(o.MaxReportAge/time.Second), 10)
}

// check validates o.
func (o RuleOptions) check() error {
	switch {
	case o.MinRequests < 0:
		return errNegativeMinRequests
	case math.IsNaN(o.MinCoverage) || o.MinCoverage < 0 || o.MinCoverage > 1:
		return fmt.Errorf("%w (got %v)", errMinCoverage, o.MinCoverage)
	case o.MaxReportAge != 0 && (o.MaxReportAge < MinReportAge || o.MaxReportAge > MaxMaxReportAge || o.MaxReportAge%time.Second != 0):
		return fmt.Errorf("%w (got %v)", errMaxReportAge, o.MaxReportAge)
	case o.Job != "" && !utf8.ValidString(o.Job):
		return errors.New("job must be valid UTF-8")
	}
	return CheckDispatchDelay(o.MaxDispatchDelay)
}

// PrometheusRule wraps a rule file rendered by Rules as a Prometheus
// Operator PrometheusRule (monitoring.coreos.com/v1) called name.
func PrometheusRule(rules []byte, name string) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: " + name +
		"\n  labels:\n    app.kubernetes.io/name: llmprober\nspec:\n")
	for line := range strings.SplitSeq(strings.TrimRight(string(rules), "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		if line == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("  " + line + "\n")
	}
	return b.Bytes()
}

// DefaultRuleObjectives is the objective set of the committed rule file in
// deploy/: "default", 99% over 30 days, every target.
func DefaultRuleObjectives() []RuleObjective {
	return []RuleObjective{{Name: "default", Attainment: 0.99, Period: 30 * day}}
}
