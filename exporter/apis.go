package exporter

import "go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

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

// apiKinds lists every API kind, the one list the exporter derives
// validation, operation names and per-kind series from. The conventions
// have no transcription operation; a realtime target sends audio and gets
// text back, the multimodal generate_content.
var apiKinds = map[string]apiKind{
	"chat":        {operation: string(genaiconv.OperationNameChat), httpPhases: true},
	"completions": {operation: string(genaiconv.OperationNameTextCompletion), httpPhases: true},
	apiRealtime:   {operation: string(genaiconv.OperationNameGenerateContent), roundTrips: true},
}

// apiRealtime is the API kind of realtime WebSocket targets (streaming
// transcription).
const apiRealtime = "realtime"

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
