package window

import "github.com/llmprober/llmprober/slo/stats"

// The values of a sampled column are ascending, with positive weights and
// without NaN (they come from durations and counts). Its estimates take two
// passes: tally, for its aggregates, its total sampling weight by blocks
// and its mode; percentiles, which skips every block below a level's
// cumulative weight.

// blockSize is the number of consecutive values whose sampling weights a
// block sums.
const blockSize = 64

// tally is what one pass over a sampled column gives.
type tally struct {
	// mo are the exact aggregates of the values with their token weights
	// (with sums: the columns of one status).
	mo moments
	// total is Σ sw.
	total float64
	// mode is the value of greatest total sampling weight, ties to the
	// smallest, and modeW that weight.
	mode, modeW float64
}

// tally makes one pass over a sampled, non-empty column: the block sums of
// its sampling weights, their total, its mode and, with sums, its
// aggregates. The squared deviations are taken from the middle value k
// and corrected by the mean (Σw(v − mean)² = Σw(v − k)² − n(mean − k)²):
// a median lies within a standard deviation of the mean, so the correction
// cancels at most about one bit.
func (c *column) tally(sums bool) tally {
	var t tally
	vs, ws := c.v, c.sw
	if len(vs) == 0 {
		return t
	}
	if sums {
		t.mo = c.moments(vs[len(vs)/2])
	}
	run, runW, block := vs[0], 0.0, 0.0
	t.mode = vs[0]
	c.blocks = c.blocks[:0]
	for i, v := range vs {
		w := ws[i]
		if v != run {
			if runW > t.modeW {
				t.mode, t.modeW = run, runW
			}
			run, runW = v, 0
		}
		runW += w
		block += w
		if i%blockSize == blockSize-1 {
			c.blocks = append(c.blocks, block)
			t.total += block
			block = 0
		}
	}
	if len(vs)%blockSize != 0 {
		c.blocks = append(c.blocks, block)
		t.total += block
	}
	if runW > t.modeW {
		t.mode, t.modeW = run, runW
	}
	return t
}

// moments returns the exact aggregates of a non-empty column's values with
// their token weights, the squared deviations taken from k. Even and odd
// values are summed apart, so that two additions run at once.
func (c *column) moments(k float64) moments {
	vs := c.v
	var sum [2]twoSum
	var s2 [2]float64
	var n int64
	add := func(j, i int, w float64) {
		d := vs[i] - k
		sum[j].add(vs[i] * w)
		s2[j] += w * d * d
	}
	if c.weighted {
		for i, tok := range c.tok {
			add(i&1, i, float64(tok))
			n += tok
		}
	} else {
		for i := 0; i+1 < len(vs); i += 2 {
			add(0, i, 1)
			add(1, i+1, 1)
		}
		if len(vs)%2 == 1 {
			add(0, len(vs)-1, 1)
		}
		n = int64(len(vs))
	}
	sum[0].add(sum[1].sum)
	sum[0].add(sum[1].c)
	mean := sum[0].value() / float64(n)
	d := mean - k
	return moments{n: n, sum: sum[0].sum, sumC: -sum[0].c, mean: mean,
		m2: max(s2[0]+s2[1]-float64(n)*d*d, 0), lo: vs[0], hi: vs[len(vs)-1]}
}

// percentiles sets the values of ps from a tallied, non-empty column of
// total sampling weight total: each the smallest value whose cumulative
// weight reaches q·total (compared as cum·den ≥ num·total), the last value
// for a level the rounded sums never reach.
func (c *column) percentiles(ps []stats.Percentile, total float64) {
	vs, ws := c.v, c.sw
	i, cum := -1, 0.0 // the last value counted, and the weight through it
	for k := range ps {
		den, rhs := float64(ps[k].Level.Den), float64(ps[k].Level.Num)*total
		for i < len(vs)-1 && (i < 0 || cum*den < rhs) {
			if b := (i + 1) / blockSize; (i+1)%blockSize == 0 && (cum+c.blocks[b])*den < rhs {
				cum += c.blocks[b]
				i = min(i+blockSize, len(vs)-1)
				continue
			}
			i++
			cum += ws[i]
		}
		ps[k].Value = ptr(vs[i])
	}
}

// twoSum is a compensated running sum whose error term is Knuth's
// branch-free TwoSum: the exact rounding error of each addition.
type twoSum struct {
	sum, c float64
}

func (k *twoSum) add(x float64) {
	t := k.sum + x
	bx := t - k.sum
	k.c += (k.sum - (t - bx)) + (x - bx)
	k.sum = t
}

func (k *twoSum) value() float64 { return k.sum + k.c }
