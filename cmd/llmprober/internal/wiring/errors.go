// Package wiring turns a validated configuration into the domain objects
// of a running llmprober: each target's HTTP client, backend, schedule,
// workload, start-up gate and rolling-window store, the exporter's options
// and series budget, and the log observer.
package wiring

import "errors"

// ErrInvalid marks a configuration that failed validation (exit code 2).
var ErrInvalid = errors.New("invalid configuration")
