package stats

import (
	"math"
	"math/big"
	"slices"
	"testing"
)

func TestLevelRank(t *testing.T) {
	// Ranks are ⌈Num·n/Den⌉, at least 1, written out per level for
	// p0.1, p1, p5, p10, p25, p50, p75, p90, p95, p99, p99.9.
	tests := []struct {
		name string
		n    int
		want []int
	}{
		{"empty sample has no rank", 0, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"single value is every percentile", 1, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		// n = 10: ⌈0.01⌉=1, ⌈0.1⌉=1, ⌈0.5⌉=1, ⌈1⌉=1, ⌈2.5⌉=3, ⌈5⌉=5,
		// ⌈7.5⌉=8, ⌈9⌉=9, ⌈9.5⌉=10, ⌈9.9⌉=10, ⌈9.99⌉=10.
		{"ten values", 10, []int{1, 1, 1, 1, 3, 5, 8, 9, 10, 10, 10}},
		// n = 1000: every level lands on an integer, q·1000 exactly.
		{"thousand values", 1000, []int{1, 10, 50, 100, 250, 500, 750, 900, 950, 990, 999}},
		// n = 1001: ⌈1.001⌉=2, ⌈10.01⌉=11, ⌈50.05⌉=51, ⌈100.1⌉=101,
		// ⌈250.25⌉=251, ⌈500.5⌉=501, ⌈750.75⌉=751, ⌈900.9⌉=901,
		// ⌈950.95⌉=951, ⌈990.99⌉=991, ⌈999.999⌉=1000.
		{"thousand and one values", 1001, []int{2, 11, 51, 101, 251, 501, 751, 901, 951, 991, 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, l := range Levels() {
				if got := l.Rank(tt.n); got != tt.want[i] {
					t.Errorf("%s.Rank(%d) = %d, want %d", l, tt.n, got, tt.want[i])
				}
			}
		})
	}
}

func TestLevelRankAvoidsFloatTraps(t *testing.T) {
	// Deriving q in floating point gives the wrong rank: 99.9/100 is
	// 0.9990000000000001, and ⌈0.9990000000000001·1000⌉ = 1000. (Variables,
	// because Go folds constant expressions exactly.)
	pct, hundred, n := 99.9, 100.0, 1000.0
	if got := math.Ceil(pct / hundred * n); got != 1000 {
		t.Fatalf("float trap no longer reproduces: %v", got)
	}
	if got := P999.Rank(1000); got != 999 {
		t.Errorf("p99.9 rank of 1000 = %d, want 999", got)
	}
	// A sum of ten 0.1s is 0.9999999999999999; nine of them give
	// 0.8999999999999999, and a cumulative walk over 1..10 would reach it
	// only at the 10th value, not the 9th.
	q := 0.0
	for range 9 {
		q += 0.1
	}
	if q == 0.9 {
		t.Fatalf("float trap no longer reproduces: %v", q)
	}
	if got := P90.Rank(10); got != 9 {
		t.Errorf("p90 rank of 10 = %d, want 9", got)
	}
}

func TestLevelRankMatchesExactRational(t *testing.T) {
	// ⌈Num·n/Den⌉ in big integers for every n up to 5000 and a few huge n.
	ns := seq(1, 5000)
	ns = append(ns, 1<<40+1, 1<<53+3, 1<<62-1)
	for _, nf := range ns {
		n := int(nf)
		for _, l := range Levels() {
			num := new(big.Int).Mul(big.NewInt(l.Num), big.NewInt(int64(n)))
			q, r := new(big.Int).QuoRem(num, big.NewInt(l.Den), new(big.Int))
			if r.Sign() != 0 {
				q.Add(q, big.NewInt(1))
			}
			if got := l.Rank(n); int64(got) != q.Int64() {
				t.Fatalf("%s.Rank(%d) = %d, want %d", l, n, got, q.Int64())
			}
		}
	}
}

func TestLevelNames(t *testing.T) {
	tests := []struct {
		level         Level
		key, quantile string
	}{
		{P001, "p0.1", "0.001"},
		{P01, "p1", "0.01"},
		{P05, "p5", "0.05"},
		{P10, "p10", "0.1"},
		{P25, "p25", "0.25"},
		{P50, "p50", "0.5"},
		{P75, "p75", "0.75"},
		{P90, "p90", "0.9"},
		{P95, "p95", "0.95"},
		{P99, "p99", "0.99"},
		{P999, "p99.9", "0.999"},
		{Level{1, 1}, "p100", "1"},
		{Level{1, 3}, "p33.333333333333", "0.333333333333"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if got := tt.level.Key(); got != tt.key {
				t.Errorf("Key() = %q, want %q", got, tt.key)
			}
			if got := tt.level.String(); got != tt.key {
				t.Errorf("String() = %q, want %q", got, tt.key)
			}
			if got := tt.level.Quantile(); got != tt.quantile {
				t.Errorf("Quantile() = %q, want %q", got, tt.quantile)
			}
		})
	}
}

func TestLevelsAreIncreasingCopies(t *testing.T) {
	ls := Levels()
	if len(ls) != 11 {
		t.Fatalf("len(Levels()) = %d, want 11", len(ls))
	}
	for i := 1; i < len(ls); i++ {
		// a/b < c/d ⇔ a·d < c·b for positive denominators.
		if ls[i-1].Num*ls[i].Den >= ls[i].Num*ls[i-1].Den {
			t.Errorf("%s is not below %s", ls[i-1], ls[i])
		}
	}
	ls[0] = Level{1, 2}
	if got := Levels()[0]; got != P001 {
		t.Errorf("Levels()[0] = %v after mutating a copy, want p0.1", got)
	}
	if !slices.ContainsFunc(Levels(), func(l Level) bool { return l == P50 }) {
		t.Error("Levels() lacks p50")
	}
}

func TestLevelValidAndFloats(t *testing.T) {
	tests := []struct {
		name  string
		level Level
		valid bool
	}{
		{"p99.9 is valid", P999, true},
		{"one is valid", Level{1, 1}, true},
		{"zero is not a level", Level{0, 100}, false},
		{"above one is not a level", Level{101, 100}, false},
		{"zero denominator", Level{1, 0}, false},
		{"negative", Level{-1, 100}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.level.Valid(); got != tt.valid {
				t.Errorf("Valid() = %v, want %v", got, tt.valid)
			}
		})
	}
	// 1 − 0.999 in float64 is 0.0010000000000000009; the complement taken
	// from the fraction, 1/1000, is the nearest float64 to 0.001.
	if got := P999.Complement(); got != 0.001 {
		t.Errorf("p99.9 complement = %.17g, want 0.001", got)
	}
	if got := P999.Float(); got != 0.999 {
		t.Errorf("p99.9 float = %.17g, want 0.999", got)
	}
}
