package exporter

import (
	"testing"

	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

	"github.com/llmprober/llmprober/probe/api"
)

// apiRealtime is the API kind of realtime WebSocket targets.
const apiRealtime = api.Realtime

// TestAPIKindsAgree checks the exporter's table against the one list and
// the semantic conventions: every kind, its gen_ai.operation.name a
// convention's value, its series as hand-listed here.
func TestAPIKindsAgree(t *testing.T) {
	want := map[string]apiKind{
		"chat":        {operation: string(genaiconv.OperationNameChat), httpPhases: true},
		"completions": {operation: string(genaiconv.OperationNameTextCompletion), httpPhases: true},
		"realtime":    {operation: string(genaiconv.OperationNameGenerateContent), roundTrips: true},
	}
	if len(apiKinds) != len(want) || len(api.Kinds()) != len(want) {
		t.Fatalf("%d exporter kinds, %d listed kinds; want %d", len(apiKinds), len(api.Kinds()), len(want))
	}
	for name, w := range want {
		if got := apiKinds[name]; got != w {
			t.Errorf("kind %s = %+v, want %+v", name, got, w)
		}
	}
}
