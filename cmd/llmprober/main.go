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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// SIGHUP, which by default kills the process, must not lose the final
	// flush: it is ignored until configuration reload exists.
	signal.Ignore(syscall.SIGHUP)
	err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr, environ())
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
