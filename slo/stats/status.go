package stats

// Status is a request's final status as far as summaries are concerned.
type Status int

// The statuses of the breakdown.
const (
	StatusSuccessful Status = iota
	StatusErrored
	StatusIncomplete
)

// String returns "successful", "errored" or "incomplete" ("unknown" for any
// other value).
func (s Status) String() string {
	switch s {
	case StatusSuccessful:
		return "successful"
	case StatusErrored:
		return "errored"
	case StatusIncomplete:
		return "incomplete"
	}
	return "unknown"
}

// ByStatus holds one T per status, plus one for all requests together.
type ByStatus[T any] struct {
	Successful, Errored, Incomplete, All T
}

// Of returns a pointer to the member for status s, or nil for an unknown
// status.
func (b *ByStatus[T]) Of(s Status) *T {
	switch s {
	case StatusSuccessful:
		return &b.Successful
	case StatusErrored:
		return &b.Errored
	case StatusIncomplete:
		return &b.Incomplete
	}
	return nil
}

// Group collects value(item) for every item whose value is present (ok true)
// into its status's slice and into All, keeping input order. An item with an
// unknown status goes into All only.
func Group[I, V any](items []I, status func(I) Status, value func(I) (V, bool)) ByStatus[[]V] {
	var b ByStatus[[]V]
	for _, it := range items {
		v, ok := value(it)
		if !ok {
			continue
		}
		if p := b.Of(status(it)); p != nil {
			*p = append(*p, v)
		}
		b.All = append(b.All, v)
	}
	return b
}

// MapByStatus applies f to each member of b, All included.
func MapByStatus[T, U any](b ByStatus[T], f func(T) U) ByStatus[U] {
	return ByStatus[U]{
		Successful: f(b.Successful),
		Errored:    f(b.Errored),
		Incomplete: f(b.Incomplete),
		All:        f(b.All),
	}
}

// SummarizeByStatus summarizes each member of values with Summarize.
func SummarizeByStatus(values ByStatus[[]float64], confidence float64) ByStatus[Summary] {
	return MapByStatus(values, func(v []float64) Summary { return Summarize(v, confidence) })
}

// SummarizeWeightedByStatus summarizes each member of values with the
// matching member of weights, with SummarizeWeighted.
func SummarizeWeightedByStatus(values ByStatus[[]float64], weights ByStatus[[]int64]) ByStatus[WeightedSummary] {
	return ByStatus[WeightedSummary]{
		Successful: SummarizeWeighted(values.Successful, weights.Successful),
		Errored:    SummarizeWeighted(values.Errored, weights.Errored),
		Incomplete: SummarizeWeighted(values.Incomplete, weights.Incomplete),
		All:        SummarizeWeighted(values.All, weights.All),
	}
}
