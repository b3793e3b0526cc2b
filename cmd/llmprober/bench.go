package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/benchrun"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe/api"
)

// benchCmd is "llmprober bench": one constant-rate target against a URL for
// a bounded time, without the HTTP server; every request's measurements are
// kept in memory and summarised at the end.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if usesConfig(args) {
		return benchConfigCmd(ctx, args, stdout, stderr)
	}
	s, asJSON, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	t, err := s.Target()
	if err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	run, err := benchrun.Execute(ctx, t, s, stderr)
	if errors.Is(err, benchrun.ErrOutputPath) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	rep := benchrun.NewReport(run)
	if asJSON {
		return rep.WriteJSON(stdout)
	}
	rep.WriteText(stdout, s.Describe())
	return nil
}

// parseBenchFlags reads and checks the command line of "llmprober bench";
// asJSON is --json.
func parseBenchFlags(args []string, stderr io.Writer) (s benchrun.Settings, asJSON bool, err error) {
	fs := benchFlagSet(&s, &asJSON, stderr)
	if err := parseFlags(fs, args); err != nil {
		return s, false, err
	}
	if err := s.Check(); err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return s, false, errUsage
	}
	return s, asJSON, nil
}

// benchFlagSet is the flag set of a flag-driven benchmark, writing to w;
// its usage lists the flags of both kinds of benchmark (benchUsage).
func benchFlagSet(s *benchrun.Settings, asJSON *bool, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() { benchUsage(w) }
	fs.StringVar(&s.URL, "target-url", "", "OpenAI-compatible base URL with its version path (http://127.0.0.1:8000/v1); required")
	fs.StringVar(&s.Model, "model", "", "model name sent in requests; required")
	fs.StringVar(&s.API, "api", config.APIChat, strings.Join(api.Of(api.HTTP), " or "))
	fs.Float64Var(&s.Rate, "rate", 0, "constant request rate, requests per second; required")
	fs.DurationVar(&s.Duration, "duration", 0, "how long requests are sent; required, at most 1h")
	fs.DurationVar(&s.Timeout, "timeout", 30*time.Second, "bound of each request")
	fs.BoolVar(&s.Stream, "stream", false, "ask for streamed (SSE) responses")
	fs.BoolVar(&s.IgnoreEOS, "ignore-eos", false, `send "ignore_eos": true (vLLM, SGLang, llama.cpp)`)
	fs.BoolVar(asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&s.CPUProfile, "cpu-profile", "", "write a CPU profile of the run (pprof format) to this file")
	fs.IntVar(&s.OutputTokens, "output-tokens", 64, "output tokens asked for per request")
	fs.IntVar(&s.PromptTokens, "prompt-tokens", 32, "prompt length per request, in tokens")
	fs.IntVar(&s.MaxConcurrency, "max-concurrency", 1000, "requests in flight at most")
	fs.IntVar(&s.MaxQueue, "max-queue", 1000, "due requests that may wait for a slot before being dropped")
	return fs
}

// benchUsage prints the two forms of "llmprober bench" and the flags of
// each: the flag-driven benchmark of a URL and the benchmark of a
// configured target (--config).
func benchUsage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  llmprober bench --target-url URL --model M --rate R --duration D [flags of a URL benchmark]
      Send requests at a constant rate for a bounded time, then report how
      well the schedule was kept (achieved rate, dispatch delay, CPU, memory).
  llmprober bench --config FILE [--target NAME] [--profile single|sweep|goodput] (--max-duration D | --max-requests N)
                  [flags of a configured benchmark]
      Benchmark one target of a configuration file: latency table with
      intervals, tokens, throughput, SLO attainment and verdict per objective
      set; JSON, CSV and HTML reports; --gate for CI.

Flags of a URL benchmark:
`)
	var s benchrun.Settings
	var asJSON bool
	benchFlagSet(&s, &asJSON, w).PrintDefaults()
	fmt.Fprint(w, "\nFlags of a configured benchmark (--config):\n")
	var f benchConfigFlags
	benchConfigFlagSet(&f, w).PrintDefaults()
}
