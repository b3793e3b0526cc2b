package exporter

import (
	"math"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

func TestMergeBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, more []float64
		want       []float64
	}{
		{"no extras", []float64{0.1, 0.5}, nil, []float64{0.1, 0.5}},
		{"extras inserted in order", []float64{0.1, 0.5}, []float64{0.3, 0.05}, []float64{0.05, 0.1, 0.3, 0.5}},
		{"duplicates removed", []float64{0.1, 0.5}, []float64{0.5, 0.2, 0.2}, []float64{0.1, 0.2, 0.5}},
		{"beyond the last", []float64{1}, []float64{300}, []float64{1, 300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := slices.Clone(tc.base)
			if got := mergeBoundaries(base, tc.more); !slices.Equal(got, tc.want) {
				t.Errorf("merge = %v; want %v", got, tc.want)
			}
			if !slices.Equal(base, tc.base) {
				t.Errorf("defaults modified: %v", base)
			}
		})
	}
}

func TestHistogramTable(t *testing.T) {
	for _, s := range histogramSpecs {
		t.Run(s.Name, func(t *testing.T) {
			if s.Description == "" || s.Unit == "" {
				t.Errorf("unit %q, description %q: both required", s.Unit, s.Description)
			}
			if len(s.Boundaries) == 0 || !slices.IsSorted(s.Boundaries) ||
				len(slices.Compact(slices.Clone(s.Boundaries))) != len(s.Boundaries) {
				t.Errorf("boundaries %v are not strictly increasing", s.Boundaries)
			}
			if s.Unit == "s" && (s.Boundaries[0] >= 1 || s.Boundaries[len(s.Boundaries)-1] > 200) {
				t.Errorf("boundaries %v do not look like seconds", s.Boundaries)
			}
		})
	}
}

func TestBoundaryRanges(t *testing.T) {
	for _, tc := range []struct {
		name        string
		bounds      []float64
		first, last float64
	}{
		{"latency", latencyBounds, 0.005, 120},
		{"per token", perTokenBounds, 0.0005, 2.5},
		{"dispatch", dispatchBounds, 0.0001, 10},
		{"phases", phaseBounds, 0.001, 10},
		{"GenAI duration advice", genAIDurationBounds, 0.01, 81.92},
		{"GenAI token advice", genAITokenBounds, 1, 67108864},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.bounds[0] != tc.first || tc.bounds[len(tc.bounds)-1] != tc.last {
				t.Errorf("range %v … %v; want %v … %v", tc.bounds[0], tc.bounds[len(tc.bounds)-1], tc.first, tc.last)
			}
		})
	}
	// The GenAI duration advice doubles from 0.01 s: 0.01·2^13 = 81.92.
	for i, b := range genAIDurationBounds {
		if want := 0.01 * math.Pow(2, float64(i)); math.Abs(b-want) > 1e-12 {
			t.Errorf("GenAI duration boundary %d = %v; want %v", i, b, want)
		}
	}
}

func TestGenAINamesMatchConventions(t *testing.T) {
	for _, tc := range []struct{ ours, conv string }{
		{InstrumentOperationDuration, genaiconv.ClientOperationDuration{}.Name()},
		{InstrumentTokenUsage, genaiconv.ClientTokenUsage{}.Name()},
		{InstrumentTimeToFirstChunk, genaiconv.ClientOperationTimeToFirstChunk{}.Name()},
		{InstrumentTimePerOutputChunk, genaiconv.ClientOperationTimePerOutputChunk{}.Name()},
	} {
		if tc.ours != tc.conv {
			t.Errorf("%q differs from the convention's %q", tc.ours, tc.conv)
		}
	}
}
