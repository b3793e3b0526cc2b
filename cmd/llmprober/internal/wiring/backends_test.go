package wiring

import (
	"testing"

	"github.com/llmprober/llmprober/config"
)

// Every backend a configuration may name has its constructor, and no
// other.
func TestBackendsCoverConfig(t *testing.T) {
	names := config.Backends()
	if len(names) != len(backends) {
		t.Errorf("%d constructors for the %d backends %v", len(backends), len(names), names)
	}
	for _, n := range names {
		if backends[n] == nil {
			t.Errorf("backend %s has no constructor", n)
		}
	}
	if _, err := newBackend(&config.Target{Name: "x", Backend: "carrier_pigeon"}, nil, nil, nil, nil); err == nil {
		t.Error("an unknown backend was built")
	}
}
