package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/daemon"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe/sim"
)

// demoCmd is "llmprober demo": the embedded simulated endpoint on loopback,
// probed by four targets (streamed chat, streamed completions, non-streamed
// chat, realtime transcription over a WebSocket).
func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer, environ map[string]string) error {
	var f commonFlags
	if err := parseFlags(newFlagSet("demo", stderr, &f, false, true), args); err != nil {
		return err
	}
	s, err := sim.Start(sim.DemoConfig())
	if err != nil {
		return fmt.Errorf("could not start the simulated endpoint: %w", err)
	}
	defer s.Close()
	cfg := demoConfig(s.URL() + "/v1")
	env, err := config.FromEnv(environ)
	if err == nil {
		err = env.CheckUnknown(nil)
	}
	if err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	cfg.ListenAddress = firstNonEmpty(f.listen, env.ListenAddress, "127.0.0.1:9477")
	cfg.LogLevel = firstNonEmpty(f.logLevel, env.LogLevel, "info")
	cfg.ApplyDefaults()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w:\n%w", errInvalid, err)
	}
	fmt.Fprintf(stdout, "simulated OpenAI-compatible endpoint: %s/v1\n", s.URL())
	logger := wiring.NewLogger(stderr, cfg.LogLevel)
	defer daemonGC(environ, logger)()
	d, err := daemon.New(ctx, daemon.Options{Config: cfg, Logger: logger, Getenv: getenv(environ)})
	if err != nil {
		return err
	}
	return d.Run(ctx, cfg.ListenAddress, stdout)
}

// demoConfig probes the simulated endpoint at base with three HTTP targets
// at 2 requests per second each and a realtime WebSocket target at 1 (2 s
// of audio in chunks of 100 ms, sent in real time), each with an objective
// set "default" (TTFT ≤ 300 ms and ITL ≤ 40 ms for the streamed HTTP ones,
// latency ≤ 2.5 s for the whole responses, TTFT ≤ 300 ms and latency
// ≤ 2.5 s for the realtime one; 99% over 30 days).
func demoConfig(base string) *config.Config {
	yes, no := true, false
	target := func(name, api string, stream *bool) config.Target {
		return config.Target{
			Name: name, BaseURL: base, Model: sim.DefaultModel, API: api, Stream: stream,
			Timeout:   10 * time.Second,
			Tag:       "demo",
			Readiness: config.Readiness{Path: "/health"},
			Workload:  config.Workload{PromptTokens: config.Distribution{Mean: 200, Stdev: 60, Min: 16, Max: 512}, OutputTokens: config.Distribution{Mean: 48, Stdev: 16, Min: 1, Max: 128}, IgnoreEOS: true},
			Schedule:  config.Schedule{Strategy: "constant", Rate: 2, MaxConcurrency: 8},
		}
	}
	d := func(v time.Duration) *time.Duration { return &v }
	streamed := []config.Objective{{Name: "default", TTFT: d(300 * time.Millisecond), ITL: d(40 * time.Millisecond)}}
	whole := []config.Objective{{Name: "default", Latency: d(2500 * time.Millisecond)}}
	chat, completions, unary := target("sim-chat", config.APIChat, &yes), target("sim-completions", config.APICompletions, &yes),
		target("sim-chat-unary", config.APIChat, &no)
	chat.Objectives, completions.Objectives, unary.Objectives = streamed, streamed, whole
	rt := target("sim-realtime", "", &yes)
	rt.Backend, rt.Workload = config.BackendWebSocket, config.Workload{}
	rt.Realtime = &config.Realtime{AudioDuration: 2 * time.Second, ChunkDuration: 100 * time.Millisecond, Pacing: config.PacingRealtime}
	rt.Schedule.Rate = 1
	rt.Objectives = []config.Objective{{Name: "default", TTFT: d(300 * time.Millisecond), Latency: d(2500 * time.Millisecond)}}
	return &config.Config{Targets: []config.Target{chat, completions, unary, rt}}
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
