package probe

import (
	"runtime"
	"strings"
	"testing"
)

// TestServerErrorBounds reads error reports that would cost the most per
// byte: error members nested thousands deep around a long string (a copy
// of the rest at every level, were each followed), and long JSON arrays
// (about 20 bytes kept per 2, were they re-encoded). What reading one
// allocates stays under 32 times its length (21 measured for the nesting,
// which followed to the end would allocate about 9000 times), and nesting
// stops after MaxErrorNesting error members.
func TestServerErrorBounds(t *testing.T) {
	nest := func(n int, inner string) string {
		return strings.Repeat(`{"error":`, n) + inner + strings.Repeat("}", n)
	}
	long := `"` + strings.Repeat("x", 100<<10) + `"`
	numbers := "[" + strings.Repeat("1,", 512<<10) + "1]"
	tests := []struct {
		name, data, want string
	}{
		{"nesting up to the bound", nest(MaxErrorNesting, `{"message":"m"}`), "m"},
		{"nesting past the bound", nest(MaxErrorNesting+1, `{"message":"m"}`), `{"message":"m"}`},
		{"nested 9000 deep around 100 KiB", nest(9000, long), nest(9000-MaxErrorNesting-1, long)},
		{"1 MiB array of numbers", numbers, numbers},
		{"1 MiB array as the message", `{"message":` + numbers + `}`, numbers},
		{"a short array is re-encoded", `[1, "\u0074"]`, `[1,"t"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			got := ParseServerError(data)
			runtime.ReadMemStats(&after)
			if got.Message != tt.want {
				t.Fatalf("message %.60q… (%d bytes), want %.60q… (%d bytes)", got.Message, len(got.Message), tt.want, len(tt.want))
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			if alloc > uint64(32*len(data)+64<<10) {
				t.Errorf("reading %d bytes allocated %d bytes, want at most 32 times as many", len(data), alloc)
			}
			t.Logf("reading %d bytes allocated %d bytes", len(data), alloc)
		})
	}
}
