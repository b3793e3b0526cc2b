package exporter

import "github.com/llmprober/llmprober/probe/api"

// apiKind is what the exporter knows of one API kind (Target.API): its
// gen_ai.operation.name and what its backend measures.
type apiKind struct {
	// operation is gen_ai.operation.name.
	operation string
	// roundTrips: the backend measures round trips (time to the last
	// round trip, average round-trip time).
	roundTrips bool
	// httpPhases: requests go over HTTP, with DNS, connect, TLS and
	// first-byte phases.
	httpPhases bool
}

// apiKinds maps every API kind of api.Kinds, the one list, to what the
// exporter derives validation, operation names and per-kind series from.
var apiKinds = newAPIKinds(api.Kinds())

// newAPIKinds returns the exporter's table of kinds.
func newAPIKinds(kinds []api.Kind) map[string]apiKind {
	out := make(map[string]apiKind, len(kinds))
	for _, k := range kinds {
		out[k.Name] = apiKind{operation: k.Operation, roundTrips: k.RoundTrips, httpPhases: k.HTTPPhases}
	}
	return out
}

// kind returns the API kind of t; the zero kind for an unknown API, which
// validateTarget refuses.
func (t *Target) kind() apiKind { return apiKinds[t.API] }

// knownAPI reports whether api is an API kind the exporter labels.
func knownAPI(api string) bool {
	_, ok := apiKinds[api]
	return ok
}

// operationName maps an API kind to gen_ai.operation.name.
func operationName(api string) string { return apiKinds[api].operation }
