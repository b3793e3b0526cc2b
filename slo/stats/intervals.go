package stats

// Split returns w divided into n equal consecutive intervals, the first
// starting at w.Start and the last ending at w.End; nil when w has no
// length or n < 1.
func (w Window) Split(n int) []Window {
	l := w.Length()
	if l == 0 || n < 1 {
		return nil
	}
	out := make([]Window, n)
	for i := range out {
		out[i] = Window{Start: w.Start + float64(i)*l/float64(n), End: w.Start + float64(i+1)*l/float64(n)}
	}
	out[n-1].End = w.End
	return out
}

// IntervalOf returns the index of the interval of w.Split(n) that holds
// the instant t, each interval half-open [Start, End) but the last, which
// is closed, so that every instant of w lies in exactly one; ok is false
// when t lies outside w or w cannot be split.
func IntervalOf(t float64, w Window, n int) (i int, ok bool) {
	l := w.Length()
	if l == 0 || n < 1 || !w.contains(t) {
		return 0, false
	}
	return min(int((t-w.Start)/l*float64(n)), n-1), true
}

// CountsByInterval returns how many of times lie in each interval of
// w.Split(n) (see IntervalOf); their sum is the number of times in w.
func CountsByInterval(times []float64, w Window, n int) []float64 {
	out := make([]float64, max(n, 0))
	for _, t := range times {
		if i, ok := IntervalOf(t, w, n); ok {
			out[i]++
		}
	}
	return out
}

// TokensByInterval returns the output and prompt tokens of spans in each
// interval of w.Split(n), by the rules of TokensInWindow: output tokens
// spread evenly over [FirstToken, LastToken] (all at FirstToken when
// LastToken ≤ FirstToken), prompt tokens at FirstToken, an instant in the
// one interval IntervalOf gives. Their sums are TokensInWindow's.
func TokensByInterval(spans []TokenSpan, w Window, n int) (output, prompt []float64) {
	parts := w.Split(n)
	output, prompt = make([]float64, len(parts)), make([]float64, len(parts))
	for _, s := range spans {
		i, in := IntervalOf(s.FirstToken, w, n)
		if in {
			prompt[i] += float64(s.PromptTokens)
		}
		if !(s.LastToken > s.FirstToken) {
			if in {
				output[i] += float64(s.OutputTokens)
			}
			continue
		}
		for k, p := range parts {
			output[k] += float64(s.OutputTokens) * p.overlap(s.FirstToken, s.LastToken) / (s.LastToken - s.FirstToken)
		}
	}
	return output, prompt
}

// ConcurrencyByInterval returns the time-weighted mean number of requests
// in flight over each interval of w.Split(n) (MeanConcurrency of each);
// as the intervals have one length, their mean is MeanConcurrency over w.
func ConcurrencyByInterval(spans []Span, w Window, n int) []float64 {
	parts := w.Split(n)
	out := make([]float64, len(parts))
	for k, p := range parts {
		out[k], _ = MeanConcurrency(spans, p)
	}
	return out
}
