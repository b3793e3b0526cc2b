package stats

import (
	"math"
	"testing"
)

// closeTo reports whether got is within tol of want, relative to |want|
// when |want| > 1 and absolute otherwise.
func closeTo(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

func assertClose(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !closeTo(got, want, tol) {
		t.Errorf("%s = %.17g, want %.17g (tolerance %g)", name, got, want, tol)
	}
}

// assertPtr checks a present figure.
func assertPtr(t *testing.T, name string, got *float64, want, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s is absent, want %.17g", name, want)
		return
	}
	assertClose(t, name, *got, want, tol)
}

// assertNil checks an absent figure.
func assertNil[T any](t *testing.T, name string, got *T) {
	t.Helper()
	if got != nil {
		t.Errorf("%s = %+v, want absent", name, *got)
	}
}

// seq returns lo, lo+1, …, hi.
func seq(lo, hi int) []float64 {
	out := make([]float64, 0, hi-lo+1)
	for v := lo; v <= hi; v++ {
		out = append(out, float64(v))
	}
	return out
}
