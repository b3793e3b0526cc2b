package stats

import (
	"slices"
	"testing"
)

type request struct {
	status  Status
	latency float64
	ok      bool // latency present
}

func TestGroup(t *testing.T) {
	reqs := []request{
		{StatusSuccessful, 1, true},
		{StatusErrored, 5, true},
		{StatusSuccessful, 2, true},
		{StatusIncomplete, 0, false}, // absent: in no group
		{StatusIncomplete, 9, true},
		{Status(42), 7, true}, // unknown: All only
	}
	b := Group(reqs,
		func(r request) Status { return r.status },
		func(r request) (float64, bool) { return r.latency, r.ok })
	tests := []struct {
		name string
		got  []float64
		want []float64
	}{
		{"successful", b.Successful, []float64{1, 2}},
		{"errored", b.Errored, []float64{5}},
		{"incomplete", b.Incomplete, []float64{9}},
		{"all in input order", b.All, []float64{1, 5, 2, 9, 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !slices.Equal(tt.got, tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestSummarizeByStatus(t *testing.T) {
	values := ByStatus[[]float64]{
		Successful: []float64{1, 2, 3, 4},
		Errored:    []float64{10},
		All:        []float64{1, 2, 3, 4, 10},
	}
	s := SummarizeByStatus(values, 0.95)
	// Successful: mean 2.5; errored: 10, no mean CI with n = 1; incomplete:
	// empty; all: (10 + 10)/5 = 4.
	assertPtr(t, "successful mean", s.Successful.Mean, 2.5, 0)
	assertPtr(t, "errored mean", s.Errored.Mean, 10, 0)
	assertNil(t, "errored mean CI", s.Errored.MeanCI)
	if s.Incomplete.Count != 0 {
		t.Errorf("incomplete count = %d, want 0", s.Incomplete.Count)
	}
	assertNil(t, "incomplete mean", s.Incomplete.Mean)
	assertPtr(t, "all mean", s.All.Mean, 4, 0)
	if s.All.Confidence != 0.95 {
		t.Errorf("all confidence = %v", s.All.Confidence)
	}
}

func TestSummarizeWeightedByStatus(t *testing.T) {
	values := ByStatus[[]float64]{Successful: []float64{0.01, 0.03}, All: []float64{0.01, 0.03, 0.5}}
	weights := ByStatus[[]int64]{Successful: []int64{1, 3}, All: []int64{1, 3, 4}}
	s := SummarizeWeightedByStatus(values, weights)
	// Successful: (0.01 + 0.09)/4 = 0.025, Σw = 4; all: (0.1 + 2)/8 = 0.2625.
	assertPtr(t, "successful mean", s.Successful.Mean, 0.025, 1e-15)
	assertPtr(t, "all mean", s.All.Mean, 0.2625, 1e-15)
	if s.Successful.Count != 4 || s.All.Count != 8 || s.Errored.Count != 0 {
		t.Errorf("counts = %d, %d, %d; want 4, 8, 0", s.Successful.Count, s.All.Count, s.Errored.Count)
	}
}

func TestMapByStatusAndOf(t *testing.T) {
	b := ByStatus[int]{Successful: 1, Errored: 2, Incomplete: 3, All: 6}
	doubled := MapByStatus(b, func(v int) int { return 2 * v })
	if doubled != (ByStatus[int]{2, 4, 6, 12}) {
		t.Errorf("MapByStatus = %+v", doubled)
	}
	for s, want := range map[Status]int{StatusSuccessful: 1, StatusErrored: 2, StatusIncomplete: 3} {
		if got := b.Of(s); got == nil || *got != want {
			t.Errorf("Of(%s) = %v, want %d", s, got, want)
		}
	}
	if b.Of(Status(9)) != nil {
		t.Error("Of(unknown) is not nil")
	}
	*b.Of(StatusErrored) = 7
	if b.Errored != 7 {
		t.Errorf("Of does not point into the struct: Errored = %d", b.Errored)
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{
		StatusSuccessful: "successful",
		StatusErrored:    "errored",
		StatusIncomplete: "incomplete",
		Status(-1):       "unknown",
	} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}
