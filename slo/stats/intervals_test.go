package stats

import (
	"math"
	"reflect"
	"testing"
)

// TestIntervals: the window [0, 4] in 4 intervals of 1 s. Requests ending
// at 0, 0.5, 1 (the second interval: half-open), 3.9 and 4 (the last,
// closed) and 5 (outside) count 2, 1, 0, 2. A span of 8 output tokens
// streamed over [0.5, 2.5] puts 2, 4, 2, 0 in the intervals, one of 3
// tokens at 3 (no duration) 3 in the fourth; prompts of 10 and 20 count at
// 0.5 and 3. Requests in flight over [0, 2) and [1, 4] give concurrencies
// 1, 2, 1, 1, mean 5/4 = MeanConcurrency over the window.
func TestIntervals(t *testing.T) {
	w := Window{Start: 0, End: 4}
	if got := CountsByInterval([]float64{0, 0.5, 1, 3.9, 4, 5}, w, 4); !reflect.DeepEqual(got, []float64{2, 1, 0, 2}) {
		t.Errorf("counts %v, want [2 1 0 2]", got)
	}
	out, in := TokensByInterval([]TokenSpan{{FirstToken: 0.5, LastToken: 2.5, OutputTokens: 8, PromptTokens: 10},
		{FirstToken: 3, LastToken: 3, OutputTokens: 3, PromptTokens: 20}}, w, 4)
	if !reflect.DeepEqual(out, []float64{2, 4, 2, 3}) || !reflect.DeepEqual(in, []float64{10, 0, 0, 20}) {
		t.Errorf("tokens %v, %v; want [2 4 2 3], [10 0 0 20]", out, in)
	}
	spans := []Span{{Start: 0, End: 2}, {Start: 1, End: 4}}
	c := ConcurrencyByInterval(spans, w, 4)
	mean, _ := MeanConcurrency(spans, w)
	if !reflect.DeepEqual(c, []float64{1, 2, 1, 1}) || math.Abs((c[0]+c[1]+c[2]+c[3])/4-mean) > 1e-15 {
		t.Errorf("concurrency %v (mean over the window %v); want [1 2 1 1], mean 1.25", c, mean)
	}
	if w.Split(0) != nil || (Window{Start: 1, End: 1}).Split(3) != nil {
		t.Error("a split into no interval, or of an empty window, is not nil")
	}
	if parts := (Window{Start: 0.1, End: 0.4}).Split(3); parts[2].End != 0.4 || parts[0].Start != 0.1 {
		t.Errorf("split %v: want the bounds of the window exactly", parts)
	}
}
