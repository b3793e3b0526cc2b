// Package probe sends scheduled synthetic requests to one endpoint and
// measures each of them into a Record.
//
// A Prober combines a Strategy (when requests are due), a Workload (what each
// request asks for) and a Backend (how it is sent and measured), all reading
// one injected clock. Everything the prober does is told to an Observer; the
// generation delay of each conversation and the think time of each later turn
// to a SchedulerObserver. The package imports neither Prometheus nor
// OpenTelemetry.
//
// Strategies: the open-loop Constant, Poisson and Replay (of a trace read by
// package trace) compute each request's targeted start from the absolute
// schedule alone; the closed-loop Closed strategies (synchronous, concurrent,
// throughput) react to completions and define no targeted start. Workloads:
// Synthetic single-turn requests, Conversations of several turns, and the
// rows of a trace (ReplayWorkload).
package probe
