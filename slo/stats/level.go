package stats

import (
	"math/big"
	"math/bits"
	"strings"
)

// Level is a percentile level held as the exact fraction Num/Den, with
// 0 < Num ≤ Den. The level 99.9 % is Level{999, 1000}; its rank and weighted
// cut-off are computed in integers, never from a float q.
type Level struct {
	Num, Den int64
}

// The reported levels. Identifiers follow the metric reference's names
// (P001 is the 0.1th percentile, P01 the 1st, P999 the 99.9th); their Key
// and Quantile strings are unambiguous ("p0.1" and "0.001" for P001).
var (
	P001 = Level{1, 1000}   // 0.1th percentile.
	P01  = Level{1, 100}    // 1st percentile.
	P05  = Level{5, 100}    // 5th percentile.
	P10  = Level{10, 100}   // 10th percentile.
	P25  = Level{25, 100}   // 25th percentile.
	P50  = Level{50, 100}   // Median.
	P75  = Level{75, 100}   // 75th percentile.
	P90  = Level{90, 100}   // 90th percentile.
	P95  = Level{95, 100}   // 95th percentile.
	P99  = Level{99, 100}   // 99th percentile.
	P999 = Level{999, 1000} // 99.9th percentile.
)

// Levels returns the reported percentile levels in increasing order:
// p0.1, p1, p5, p10, p25, p50, p75, p90, p95, p99, p99.9. The slice is a
// fresh copy on every call.
func Levels() []Level {
	return []Level{P001, P01, P05, P10, P25, P50, P75, P90, P95, P99, P999}
}

// Valid reports whether 0 < Num ≤ Den.
func (l Level) Valid() bool {
	return l.Num > 0 && l.Den > 0 && l.Num <= l.Den
}

// Float returns the level as a float64 in (0, 1]. Use it only for probability
// computations, never to derive a rank.
func (l Level) Float() float64 {
	return float64(l.Num) / float64(l.Den)
}

// Complement returns the float64 value of 1 − Num/Den, computed from the
// exact fraction (Den − Num)/Den.
func (l Level) Complement() float64 {
	return float64(l.Den-l.Num) / float64(l.Den)
}

// Rank returns the 1-based rank ⌈Num·n/Den⌉ of the level in a sorted sample
// of n values, at least 1 and at most n; it returns 0 when n ≤ 0. The
// product is formed in 128 bits, so it is exact for every n.
func (l Level) Rank(n int) int {
	if n <= 0 {
		return 0
	}
	r := ceilMulDiv(uint64(l.Num), uint64(n), uint64(l.Den))
	return int(min(max(r, 1), uint64(n)))
}

// Quantile returns the level as a decimal fraction for a Prometheus
// "quantile" label or an OpenTelemetry attribute: "0.001", "0.01", "0.05",
// "0.1", "0.25", "0.5", "0.75", "0.9", "0.95", "0.99", "0.999".
func (l Level) Quantile() string {
	return decimal(big.NewRat(l.Num, l.Den))
}

// Key returns the level as a percentage prefixed by "p", for JSON keys and
// CSV column names: "p0.1", "p1", "p5", "p10", "p25", "p50", "p75", "p90",
// "p95", "p99", "p99.9".
func (l Level) Key() string {
	return "p" + decimal(big.NewRat(100*l.Num, l.Den))
}

// String returns Key.
func (l Level) String() string { return l.Key() }

// decimal writes r with up to 12 fractional digits and no trailing zeros; a
// level whose denominator is a power of ten is written exactly.
func decimal(r *big.Rat) string {
	s := r.FloatString(12)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// ceilMulDiv returns ⌈a·b/d⌉ for d > 0, exactly, provided a ≤ d (so the
// quotient fits in 64 bits).
func ceilMulDiv(a, b, d uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, rem := bits.Div64(hi, lo, d)
	if rem != 0 {
		q++
	}
	return q
}

// mulGE reports whether a·b ≥ c·d exactly, for non-negative operands.
func mulGE(a, b, c, d uint64) bool {
	h1, l1 := bits.Mul64(a, b)
	h2, l2 := bits.Mul64(c, d)
	return h1 > h2 || (h1 == h2 && l1 >= l2)
}
