package window

import "math"

// moments are the exact aggregates of a set of weighted values: total
// weight, sum, mean and sum of squared deviations (Welford's and Chan's
// updates), minimum and maximum.
type moments struct {
	n             int64
	sum, mean, m2 float64
	lo, hi        float64
	sumC          float64 // Kahan compensation of sum
}

// add adds v with weight w > 0.
func (m *moments) add(v float64, w int64) {
	m.merge(moments{n: w, sum: v * float64(w), mean: v, lo: v, hi: v})
}

// merge adds the values of o.
func (m *moments) merge(o moments) {
	if o.n == 0 {
		return
	}
	if m.n == 0 {
		*m = o
		return
	}
	n := m.n + o.n
	delta := o.mean - m.mean
	m.mean += delta * float64(o.n) / float64(n)
	m.m2 += o.m2 + delta*delta*float64(m.n)*float64(o.n)/float64(n)
	m.addSum(o.total())
	m.n = n
	m.lo, m.hi = math.Min(m.lo, o.lo), math.Max(m.hi, o.hi)
}

// addSum adds x to the compensated sum.
func (m *moments) addSum(x float64) {
	y := x - m.sumC
	t := m.sum + y
	m.sumC = (t - m.sum) - y
	m.sum = t
}

// total returns the compensated sum.
func (m *moments) total() float64 { return m.sum - m.sumC }
