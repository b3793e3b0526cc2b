package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/slo/stats"
	"github.com/llmprober/llmprober/slo/window"
)

// The benchmark profiles of --profile.
const (
	profileSingle  = "single"
	profileSweep   = "sweep"
	profileGoodput = "goodput"
)

// benchProfiles lists the profiles.
var benchProfiles = []string{profileSingle, profileSweep, profileGoodput}

// checkProfile rejects a profile the target cannot run: a sweep or a
// goodput search varies the rate or the concurrency, which a trace replay
// does not have; a goodput search needs the objective set it judges.
func (p *benchPlan) checkProfile() error {
	prof := p.flags.profile
	if prof == profileSingle {
		return nil
	}
	if p.target.Schedule.Strategy == config.StrategyTrace {
		return fmt.Errorf("--profile %s: target %s replays a trace, whose arrival times cannot be varied", prof, p.target.Name)
	}
	if prof != profileGoodput {
		return nil
	}
	if len(p.objectives) == 0 {
		return fmt.Errorf("--profile goodput: target %s has no objective sets to judge", p.target.Name)
	}
	if _, err := p.goodputObjective(); err != nil {
		return err
	}
	return nil
}

// goodputObjective is the index of the objective set the goodput search
// judges: --objective, or the first.
func (p *benchPlan) goodputObjective() (int, error) {
	if p.flags.objective == "" {
		return 0, nil
	}
	for i, o := range p.objectives {
		if o.Name == p.flags.objective {
			return i, nil
		}
	}
	return 0, fmt.Errorf("--objective %s: target %s has no such objective set", p.flags.objective, p.target.Name)
}

// withSchedule returns a copy of p whose target runs schedule s.
func (p *benchPlan) withSchedule(s config.Schedule) *benchPlan {
	q := *p
	q.target.Schedule = s
	return &q
}

// scheduleLabel names a schedule in reports: "synchronous", "throughput",
// "constant 12.5/s", "poisson 3/s", "concurrent 8", "trace".
func scheduleLabel(s *config.Schedule) string {
	switch s.Strategy {
	case config.StrategyConstant, config.StrategyPoisson:
		return s.Strategy + " " + strconv.FormatFloat(s.Rate, 'g', 4, 64) + "/s"
	case config.StrategyConcurrent:
		return s.Strategy + " " + strconv.Itoa(s.Streams)
	}
	return s.Strategy
}

// runProfile runs the benchmarks of the plan's profile, in order, and
// stops after one that was interrupted.
func (p *benchPlan) runProfile(ctx context.Context, stderr io.Writer) ([]*benchResult, *goodputSearch, error) {
	switch p.flags.profile {
	case profileSweep:
		res, err := p.runSweep(ctx, stderr)
		return res, nil, err
	case profileGoodput:
		return p.runGoodput(ctx, stderr)
	}
	res, err := p.run(ctx, stderr)
	if err != nil {
		return nil, nil, err
	}
	return []*benchResult{res}, nil, nil
}

// runSweep runs synchronous, then throughput (the target's
// max_concurrency in flight), then --sweep-rates constant rates spread
// evenly strictly between the request rates those two measured:
// r_sync + k·(r_max − r_sync)/(N + 1), k = 1 … N.
func (p *benchPlan) runSweep(ctx context.Context, stderr io.Writer) ([]*benchResult, error) {
	base := p.target.Schedule
	var out []*benchResult
	for _, strategy := range []string{config.StrategySynchronous, config.StrategyThroughput} {
		s := base
		s.Strategy = strategy
		r, err := p.withSchedule(s).run(ctx, stderr)
		if err != nil {
			return interruptedSweep(out, err)
		}
		out = append(out, r)
		if r.stop == benchStopInterrupted {
			return out, nil
		}
	}
	lo, hi := measuredRate(out[0]), measuredRate(out[1])
	if !(lo > 0) || !(hi > 0) {
		return nil, fmt.Errorf("sweep: the synchronous and throughput benchmarks measured %v and %v requests/s; "+
			"both must finish requests in their measurement windows (raise --max-duration or --max-requests)", lo, hi)
	}
	for _, rate := range sweepRates(lo, hi, p.flags.sweepRates) {
		s := base
		s.Strategy, s.Rate = config.StrategyConstant, rate
		r, err := p.withSchedule(s).run(ctx, stderr)
		if err != nil {
			return interruptedSweep(out, err)
		}
		out = append(out, r)
		if r.stop == benchStopInterrupted {
			break
		}
	}
	return out, nil
}

// interruptedSweep ends a sweep whose next benchmark failed with err: an
// interrupt while it waited for the target keeps the benchmarks that ran
// (the caller reports the interrupt); any other error, or an interrupt
// before any benchmark ran, is the sweep's.
func interruptedSweep(ran []*benchResult, err error) ([]*benchResult, error) {
	if errors.Is(err, errBenchWaitInterrupted) && len(ran) > 0 {
		return ran, nil
	}
	return nil, err
}

// sweepRates returns n rates spread evenly strictly between lo and hi:
// lo + k·(hi − lo)/(n + 1), k = 1 … n (all equal to lo when hi ≤ lo).
func sweepRates(lo, hi float64, n int) []float64 {
	step := max(hi-lo, 0) / float64(n+1)
	out := make([]float64, n)
	for k := range out {
		out[k] = lo + float64(k+1)*step
	}
	if hi <= lo {
		for k := range out {
			out[k] = lo
		}
	}
	return out
}

// measuredRate is the benchmark's finished requests per second; 0 when
// nothing was measured.
func measuredRate(r *benchResult) float64 {
	if v := r.snap.RequestRate.All; v != nil {
		return *v
	}
	return 0
}

// writeSweepTable prints one row per benchmark of a sweep.
func writeSweepTable(w io.Writer, results []*benchResult) {
	fmt.Fprintf(w, "%-22s %10s %12s %11s %11s %11s %12s  %s\n", "benchmark", "requests/s", "output tok/s", "TTFT p50",
		"latency p50", "latency p99", "concurrency", "SLO")
	for _, r := range results {
		s := r.snap
		row := fmt.Sprintf("%-22s %10s %12s %11s %11s %11s %12s ", r.label, floatText(s.RequestRate.All, 3),
			floatText(s.OutputTokenRate.All, 1), percentileMs(s.Summary(window.TTFT).Successful, stats.P50, 0),
			percentileMs(s.Summary(window.RequestLatency).Successful, stats.P50, 0),
			percentileMs(s.Summary(window.RequestLatency).Successful, stats.P99, 0), floatText(s.Concurrency, 2))
		for _, o := range r.docSLO() {
			row += " " + o.Objective + " " + o.Verdict
		}
		fmt.Fprintln(w, row)
	}
	fmt.Fprintln(w, "TTFT and latency in milliseconds, of successful requests")
}
