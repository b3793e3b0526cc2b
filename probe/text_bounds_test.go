package probe

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestTextPartsBounded decodes text fields of 1 MiB arrays of the
// smallest parts (empty strings, empty objects, parts without text,
// nulls) whose last part has text, directly and through encoding/json:
// each is read as text, part by part (eachPart keeps one at a time; what
// the parts allocate in all, garbage, is logged).
func TestTextPartsBounded(t *testing.T) {
	array := func(item string) string { return "[" + strings.Repeat(item+",", (1<<20)/(len(item)+1)) + `"x"]` }
	tests := []struct {
		name, data string
		want       Text
	}{
		{"empty strings", array(`""`), true},
		{"no text at all", "[" + strings.Repeat(`"",`, 1<<18) + `""]`, false},
		{"empty objects", array(`{}`), true},
		{"parts without text", array(`{"type":"image_url"}`), true},
		{"nulls", array(`null`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Text
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := got.UnmarshalJSON([]byte(tt.data))
			runtime.ReadMemStats(&after)
			if err != nil || got != tt.want {
				t.Fatalf("Text = %v, %v; want %v", got, err, tt.want)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("decoding %d bytes allocated %d", len(tt.data), alloc)
			var viaJSON Text
			if err := json.Unmarshal([]byte(tt.data), &viaJSON); err != nil || viaJSON != tt.want {
				t.Fatalf("through encoding/json: %v, %v; want %v", viaJSON, err, tt.want)
			}
		})
	}
}
