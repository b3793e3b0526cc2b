package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/llmprober/llmprober/probe"
	"github.com/llmprober/llmprober/probe/clock"
)

// benchTerminal reports whether w is a terminal; tests replace it.
var benchTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showProgress reports whether a benchmark shows its progress: on a
// terminal (stdout and stderr both), unless --quiet.
func showProgress(quiet bool, stdout, stderr io.Writer) bool {
	return !quiet && benchTerminal(stdout) && benchTerminal(stderr)
}

// benchProgressInterval is how often the progress line is redrawn.
const benchProgressInterval = 200 * time.Millisecond

// benchProgress is the probe.Observer that draws a running benchmark's
// progress on stderr: a bar over --max-requests (requests finished) or,
// without it, over --max-duration, described by the requests finished and
// errored so far and the time run. It is cleared when the run ends.
type benchProgress struct {
	bar                        *progressbar.ProgressBar
	label                      string
	maxRequests                int
	maxDuration                time.Duration
	clk                        clock.Clock
	start                      time.Time
	finished, errored, started atomic.Int64
	stop, done                 chan struct{}
	once                       sync.Once
}

var _ probe.Observer = (*benchProgress)(nil)

// startBenchProgress starts drawing the progress of the benchmark label on
// w; its bar spans maxRequests finished requests when set, else
// maxDuration.
func startBenchProgress(w io.Writer, label string, maxRequests int, maxDuration time.Duration, clk clock.Clock) *benchProgress {
	total := int64(maxRequests)
	if maxRequests == 0 {
		total = maxDuration.Milliseconds()
	}
	p := &benchProgress{label: label, maxRequests: maxRequests, maxDuration: maxDuration, clk: clk, start: clk.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	opts := []progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionSetWidth(30),
		progressbar.OptionSetDescription(p.describe()), progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(false), progressbar.OptionSetRenderBlankState(true)}
	if maxRequests > 0 {
		opts = append(opts, progressbar.OptionShowCount())
	}
	p.bar = progressbar.NewOptions64(max(total, 1), opts...)
	go p.loop()
	return p
}

// loop redraws the line until finish.
func (p *benchProgress) loop() {
	defer close(p.done)
	t := time.NewTicker(benchProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// draw sets the bar to the progress so far.
func (p *benchProgress) draw() {
	if p.maxRequests > 0 {
		_ = p.bar.Set64(min(p.finished.Load(), int64(p.maxRequests)))
	} else {
		_ = p.bar.Set64(min(p.clk.Now().Sub(p.start).Milliseconds(), p.maxDuration.Milliseconds()))
	}
	p.bar.Describe(p.describe())
}

// describe is the text before the bar: "constant 20/s: 12 finished (1
// errored), 3 in flight, 2.4 s".
func (p *benchProgress) describe() string {
	fin := p.finished.Load()
	return fmt.Sprintf("%s: %d finished (%d errored), %d in flight, %.1f s", p.label, fin, p.errored.Load(),
		max(p.started.Load()-fin, 0), p.clk.Now().Sub(p.start).Seconds())
}

// finish stops drawing and clears the line; later calls do nothing.
func (p *benchProgress) finish() {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		_ = p.bar.Clear()
	})
}

// Scheduled implements probe.Observer.
func (*benchProgress) Scheduled(string) {}

// Dropped implements probe.Observer.
func (*benchProgress) Dropped(string, probe.DropReason) {}

// State implements probe.Observer.
func (*benchProgress) State(string, probe.TargetState, time.Duration) {}

// Started implements probe.Observer.
func (p *benchProgress) Started(string) { p.started.Add(1) }

// Finished implements probe.Observer.
func (p *benchProgress) Finished(rec *probe.Record) {
	p.finished.Add(1)
	if rec.Outcome == probe.Errored {
		p.errored.Add(1)
	}
}
