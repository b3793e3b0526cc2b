package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/slo"
)

// The loads a goodput search varies.
const (
	loadConcurrency = "concurrency"
	loadRate        = "rate"
)

// goodputSearch is a goodput search's steps and what it found.
type goodputSearch struct {
	objective, kind string
	steps           []goodputStep
	// found is the index of the step at the highest met load; -1 when no
	// step was met.
	found int
}

// goodputStep is one benchmark of the search.
type goodputStep struct {
	load      float64
	benchmark int
	slo       benchDocSLO
}

// goodputLoad returns what a goodput search varies for schedule s and
// where it starts: the concurrency of a closed-loop strategy (1 for
// synchronous, the streams of concurrent, max_concurrency for throughput),
// the rate of an open-loop one.
func goodputLoad(s *config.Schedule) (kind string, start float64) {
	switch s.Strategy {
	case config.StrategySynchronous:
		return loadConcurrency, 1
	case config.StrategyConcurrent:
		return loadConcurrency, float64(s.Streams)
	case config.StrategyThroughput:
		return loadConcurrency, float64(s.MaxConcurrency)
	}
	return loadRate, s.Rate
}

// scheduleAt returns base at load: concurrent with load streams (and at
// least as many in flight), or base's open-loop strategy at rate load.
func scheduleAt(base config.Schedule, kind string, load float64) config.Schedule {
	s := base
	if kind == loadConcurrency {
		s.Strategy, s.Streams = config.StrategyConcurrent, int(load)
		s.MaxConcurrency = max(s.MaxConcurrency, int(load))
		return s
	}
	s.Rate = load
	return s
}

// goodputGrow, goodputShrink, goodputMiddle and goodputConverged are the
// search's moves for a load kind: ×2, ÷2 (concurrency down to 1, a rate
// down to 1/1024 of where it started), the midpoint (an integer for
// concurrency), and the end of the bisection (concurrencies 1 apart, rates
// within 10 %).
func goodputGrow(load float64) float64 { return 2 * load }

func goodputShrink(kind string, load, start float64) float64 {
	if kind == loadConcurrency {
		return math.Floor(load / 2)
	}
	if load/2 < start/1024 {
		return 0
	}
	return load / 2
}

func goodputMiddle(kind string, met, fail float64) float64 {
	if kind == loadConcurrency {
		return math.Floor((met + fail) / 2)
	}
	return (met + fail) / 2
}

func goodputConverged(kind string, met, fail float64) bool {
	if kind == loadConcurrency {
		return fail-met <= 1
	}
	return fail <= 1.1*met
}

// runGoodput finds the highest load whose attainment interval under the
// judged objective set lies at or above its target (verdict met), running
// one benchmark per step (see searchGoodput), at most --goodput-steps, and
// stopping after an interrupted one.
func (p *benchPlan) runGoodput(ctx context.Context, stderr io.Writer) ([]*benchResult, *goodputSearch, error) {
	idx, err := p.goodputObjective()
	if err != nil {
		return nil, nil, err
	}
	base := p.target.Schedule
	kind, start := goodputLoad(&base)
	search := &goodputSearch{objective: p.objectives[idx].Name, kind: kind, found: -1}
	var results []*benchResult
	judge := func(load float64) (met, stop bool, err error) {
		r, err := p.withSchedule(scheduleAt(base, kind, load)).run(ctx, stderr)
		if err != nil {
			_, err = interruptedSweep(results, err)
			return false, true, err
		}
		r.label = kind + " " + strconv.FormatFloat(load, 'g', 4, 64)
		results = append(results, r)
		step := goodputStep{load: load, benchmark: len(results) - 1, slo: r.docSLO()[idx]}
		search.steps = append(search.steps, step)
		stop = r.stop == benchStopInterrupted || len(search.steps) >= p.flags.goodputSteps
		return step.slo.Verdict == slo.Met.String(), stop, nil
	}
	found, err := searchGoodput(kind, start, judge)
	if err != nil {
		return nil, nil, err
	}
	for i, s := range search.steps {
		if found > 0 && s.load == found && s.slo.Verdict == slo.Met.String() {
			search.found = i
		}
	}
	return results, search, nil
}

// searchGoodput returns the highest load judge met (0 when none): from
// start it doubles while met, or halves until met, then bisects between
// the highest met load and the lowest one not met until they are
// converged. judge runs one step; stop ends the search after it. A step
// counts as met only when its attainment interval lies wholly at or above
// the target: an inconclusive step is decided as not met, like a breached
// one, so the load found is always a resolved one.
func searchGoodput(kind string, start float64, judge func(load float64) (met, stop bool, err error)) (float64, error) {
	met, fail := 0.0, 0.0
	try := func(l float64) (bool, error) {
		ok, stop, err := judge(l)
		if ok {
			met = max(met, l)
		} else if fail == 0 || l < fail {
			fail = l
		}
		if err == nil && stop {
			err = errSearchStopped
		}
		return ok, err
	}
	var err error
	if ok, e := try(start); e != nil {
		err = e
	} else if ok {
		for err == nil && fail == 0 {
			_, err = try(goodputGrow(met))
		}
	} else {
		for l := goodputShrink(kind, fail, start); err == nil && met == 0 && l > 0; l = goodputShrink(kind, fail, start) {
			_, err = try(l)
		}
	}
	for err == nil && met > 0 && fail > 0 && !goodputConverged(kind, met, fail) {
		_, err = try(goodputMiddle(kind, met, fail))
	}
	if errors.Is(err, errSearchStopped) {
		err = nil
	}
	return met, err
}

// errSearchStopped ends a search whose step budget ran out or whose last
// step was interrupted.
var errSearchStopped = errors.New("search stopped")

// goodputDoc is the search in the JSON report.
type goodputDoc struct {
	Objective string           `json:"objective"`
	Load      string           `json:"load"`
	Steps     []goodputStepDoc `json:"steps"`
	// Found is the step at the highest met load; null when none was met.
	Found *goodputStepDoc `json:"found"`
}

// goodputStepDoc is one step: its load, the index of its benchmark in
// benchmarks, and the judged objective set's result.
type goodputStepDoc struct {
	Load      float64     `json:"load"`
	Benchmark int         `json:"benchmark"`
	SLO       benchDocSLO `json:"slo"`
}

// doc converts the search.
func (g *goodputSearch) doc() *goodputDoc {
	d := &goodputDoc{Objective: g.objective, Load: g.kind, Steps: []goodputStepDoc{}}
	for _, s := range g.steps {
		d.Steps = append(d.Steps, goodputStepDoc{Load: s.load, Benchmark: s.benchmark, SLO: s.slo})
	}
	if g.found >= 0 {
		d.Found = &d.Steps[g.found]
	}
	return d
}

// writeConsole prints every step and the load found.
func (g *goodputSearch) writeConsole(w io.Writer) {
	fmt.Fprintf(w, "goodput search: the highest %s whose attainment interval under %s lies at or above its target "+
		"(an inconclusive step counts as not met)\n", g.kind, g.objective)
	for i, s := range g.steps {
		fmt.Fprintf(w, "  step %d: %s %s: %s\n", i+1, g.kind, strconv.FormatFloat(s.load, 'g', 4, 64), sloText(s.slo))
	}
	if g.found < 0 {
		fmt.Fprintf(w, "found: none (no %s tried met %s)\n", g.kind, g.objective)
		return
	}
	s := g.steps[g.found]
	fmt.Fprintf(w, "found: %s %s: %s\n", g.kind, strconv.FormatFloat(s.load, 'g', 4, 64), sloText(s.slo))
}
