package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/llmprober/llmprober/probe/sim"
)

// defaultSimAddress is where "llmprober sim" listens unless told otherwise:
// loopback, next to the daemon's own default port.
const defaultSimAddress = "127.0.0.1:9478"

// simFlags are the settings of "llmprober sim".
type simFlags struct {
	listen       string
	ttft, itl    time.Duration
	outputTokens int
	faultRate    float64
	seed         int64
}

// simCmd is "llmprober sim": the simulated OpenAI-compatible endpoint on its
// own, until ctx ends.
func simCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f simFlags
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.listen, "listen-address", defaultSimAddress, "listen address (port 0 picks a free port)")
	fs.DurationVar(&f.ttft, "ttft", 150*time.Millisecond, "time to first token of every request; also the delay of each realtime transcription delta after its audio chunk")
	fs.DurationVar(&f.itl, "itl", 25*time.Millisecond, "time between consecutive tokens")
	fs.IntVar(&f.outputTokens, "output-tokens", 64, "output length of a request that sets no max_tokens")
	fs.Float64Var(&f.faultRate, "fault-rate", 0, "probability in [0, 1] that a request fails, spread evenly over every fault kind")
	fs.Int64Var(&f.seed, "seed", 1, "seed of the random choices (faults, words)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg, err := simConfig(f)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return errUsage
	}
	l, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("could not listen on %s: %w", f.listen, err)
	}
	return serveSim(ctx, l, sim.New(cfg), stdout)
}

// checkSimFlags reports the first flag out of its range, naming it.
func checkSimFlags(f simFlags) error {
	for _, d := range []struct {
		name string
		d    time.Duration
	}{{"--ttft", f.ttft}, {"--itl", f.itl}} {
		if d.d < 0 {
			return fmt.Errorf("%s: must not be negative (got %s)", d.name, d.d)
		}
	}
	if !(f.faultRate >= 0 && f.faultRate <= 1) {
		return fmt.Errorf("--fault-rate: must be within [0, 1] (got %v)", f.faultRate)
	}
	if f.outputTokens < 1 {
		return fmt.Errorf("--output-tokens: must be at least 1 (got %d)", f.outputTokens)
	}
	return nil
}

// simConfig turns the flags into a simulated endpoint's configuration; an
// error names the offending flag.
func simConfig(f simFlags) (sim.Config, error) {
	if err := checkSimFlags(f); err != nil {
		return sim.Config{}, err
	}
	var faults map[sim.Fault]float64
	if f.faultRate > 0 {
		kinds := sim.Faults()
		faults = make(map[sim.Fault]float64, len(kinds))
		for _, k := range kinds {
			faults[k] = f.faultRate / float64(len(kinds))
		}
	}
	cfg := sim.Config{
		TTFT:         sim.Latency{Mean: f.ttft},
		ITL:          sim.Latency{Mean: f.itl},
		OutputTokens: f.outputTokens,
		Faults:       faults,
		Seed:         f.seed,
		Model:        sim.DefaultModel,
		Realtime:     sim.RealtimeConfig{DeltaLatency: sim.Latency{Mean: f.ttft}},
	}
	if err := cfg.Validate(); err != nil {
		return sim.Config{}, err
	}
	return cfg, nil
}

// serveSim serves s on l until ctx ends, then ends every request (stalled
// ones included) and closes the listener and connections.
func serveSim(ctx context.Context, l net.Listener, s *sim.Server, stdout io.Writer) error {
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	fmt.Fprintf(stdout, "simulated OpenAI-compatible endpoint: http://%s/v1 (model %s)\n", l.Addr(), sim.DefaultModel)
	var err error
	stopped := false
	select {
	case <-ctx.Done():
		stopped = true
	case err = <-served:
		err = fmt.Errorf("could not serve: %w", err)
	}
	s.Close()
	if cerr := srv.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("could not close: %w", cerr))
	}
	if stopped {
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, fmt.Errorf("could not serve: %w", serr))
		}
	}
	return err
}
