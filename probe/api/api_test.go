package api

import (
	"slices"
	"testing"
)

// TestKinds checks the list's invariants by hand-written values: unique
// names, every kind's backend listed, every backend sending a kind, and
// each backend's kinds and default in order.
func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		if seen[k.Name] || k.Operation == "" || !slices.Contains(Backends(), k.Backend) {
			t.Errorf("kind %+v: duplicate, without operation, or of an unlisted backend", k)
		}
		seen[k.Name] = true
		if k.RoundTrips == k.HTTPPhases {
			t.Errorf("kind %s: round trips %v and HTTP phases %v; a backend measures one of them", k.Name, k.RoundTrips, k.HTTPPhases)
		}
	}
	for backend, want := range map[string][]string{HTTP: {Chat, Completions}, WebSocket: {Realtime}, "smoke_signal": nil} {
		if got := Of(backend); !slices.Equal(got, want) {
			t.Errorf("Of(%s) = %v, want %v", backend, got, want)
		}
	}
	if DefaultBackend() != HTTP || !slices.Equal(Backends(), []string{HTTP, WebSocket}) {
		t.Errorf("backends %v, default %s; want openai_http first", Backends(), DefaultBackend())
	}
	if k, ok := Lookup(Realtime); !ok || !k.AlwaysStreams || !k.RoundTrips || k.Conversations {
		t.Errorf("Lookup(realtime) = %+v, %v", k, ok)
	}
	if _, ok := Lookup("transcribe"); ok {
		t.Error("Lookup found an unknown kind")
	}
}
