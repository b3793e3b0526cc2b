package probe

import "time"

// Instants summarizes a series of instants without keeping them, in
// constant memory however many arrive: their number, the first, the last
// and their mean. The zero value is an empty series.
type Instants struct {
	n           int
	first, last time.Time
	// sum is Σ (t − first) in nanoseconds, summed in arrival order.
	sum float64
}

// InstantsOf returns the series of ts, added in order.
func InstantsOf(ts ...time.Time) Instants {
	var s Instants
	for _, t := range ts {
		s.Add(t)
	}
	return s
}

// Add appends t to the series.
func (s *Instants) Add(t time.Time) {
	if s.n == 0 {
		s.first = t
	}
	s.n++
	s.last = t
	s.sum += float64(t.Sub(s.first))
}

// Len returns the number of instants added.
func (s Instants) Len() int { return s.n }

// First returns the first instant added; zero when the series is empty.
func (s Instants) First() time.Time { return s.first }

// Last returns the last instant added; zero when the series is empty.
func (s Instants) Last() time.Time { return s.last }

// meanSince returns mean(t) − ref in nanoseconds, as a float; 0 for an
// empty series.
func (s Instants) meanSince(ref time.Time) float64 {
	if s.n == 0 {
		return 0
	}
	return float64(s.first.Sub(ref)) + s.sum/float64(s.n)
}
