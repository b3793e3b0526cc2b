// Command llmprober probes LLM inference servers with scheduled synthetic
// requests and exports what it measures to Prometheus and OpenTelemetry.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
)

// init hands the link-time version and revision to the packages that
// report them.
func init() { buildinfo.Set(version, revision) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// SIGHUP, which by default kills the process, must not lose the final
	// flush: it is ignored until configuration reload exists.
	signal.Ignore(syscall.SIGHUP)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, os.Args[1:], os.Stdout, os.Stderr, environ()) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// From now on a second signal ends the process at once.
		stop()
		select {
		case err = <-done:
		case <-time.After(stopGrace(os.Args[1:], os.Getenv)):
			fmt.Fprintln(os.Stderr, "llmprober: stopped by a signal")
			os.Exit(1)
		}
	}
	stop()
	if err != nil {
		if !errors.Is(err, errUsage) && !errors.Is(err, errHelp) {
			fmt.Fprintln(os.Stderr, "llmprober:", err)
		}
		os.Exit(exitCode(err))
	}
}

// environ returns the process environment as a map.
func environ() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}
