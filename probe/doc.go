// Package probe sends scheduled synthetic requests to one endpoint and
// measures each of them into a Record.
//
// A Prober combines a Strategy (when requests are due), a Workload (what each
// request asks for) and a Backend (how it is sent and measured), all reading
// one injected clock. Everything the prober does is told to an Observer. The
// package imports neither Prometheus nor OpenTelemetry.
package probe
