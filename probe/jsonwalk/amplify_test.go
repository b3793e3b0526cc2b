package jsonwalk

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/probe/internal/endless"
)

// maxWalkState bounds the live heap a Walker keeps beyond its message
// while it walks, in bytes: the decoder's state, whose stack of
// containers stops at jsontext's depth limit (10000), and the tokens it
// reads in place.
const maxWalkState = 256 << 10

// TestAmplification walks messages of every adversarial JSON shape (each
// 256 KiB and 1 MiB long, cut where the shape ends) with Skip, Object and Text:
// whatever the length, the walk keeps less than maxWalkState beside the
// message, and nesting past jsontext's depth limit fails the walk.
func TestAmplification(t *testing.T) {
	for _, shape := range endless.JSONShapes() {
		t.Run(shape.Name, func(t *testing.T) {
			for _, n := range []int64{256 << 10, 1 << 20} {
				data, err := io.ReadAll(endless.New(shape.Prefix, shape.Pattern, n))
				if err != nil {
					t.Fatal(err)
				}
				base := endless.LiveHeap()
				var w Walker
				var has bool
				walks := map[string]func() bool{
					"Skip":   w.Skip,
					"Text":   func() bool { return w.Text(&has) },
					"Object": func() bool { return w.Object([]string{"choices"}, func(int) bool { return w.Skip() }) },
				}
				for name, walk := range walks {
					w.Reset(data)
					if walk() {
						t.Fatalf("%d KiB: %s walked an unterminated message", n>>10, name)
					}
				}
				grown := max(endless.LiveHeap(), base) - base
				runtime.KeepAlive(&w)
				if grown > maxWalkState {
					t.Errorf("%d KiB: the walk kept %d bytes beside the message, want at most %d", n>>10, grown, maxWalkState)
				}
				t.Logf("%d KiB: the walk kept at most %d bytes beside the message", n>>10, grown)
			}
		})
	}
}

// TestDepthLimit: arrays nested 10000 deep are walked, 10001 are not.
func TestDepthLimit(t *testing.T) {
	for _, tt := range []struct {
		depth int
		want  bool
	}{{10000, true}, {10001, false}} {
		var w Walker
		w.Reset([]byte(strings.Repeat("[", tt.depth) + strings.Repeat("]", tt.depth)))
		if got := w.Skip() && w.End(); got != tt.want {
			t.Errorf("depth %d: walked %v, want %v", tt.depth, got, tt.want)
		}
	}
}
