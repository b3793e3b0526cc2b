// Package stats is the pure mathematics behind llmprober's reported figures:
// distribution summaries with exact percentiles, confidence intervals for the
// mean and for percentiles, token-weighted summaries, the per-status
// breakdown, windowed rates and concurrency, and the Wilson interval for a
// proportion.
//
// Conventions:
//   - Percentile levels are exact fractions ([Level]); ranks and weighted
//     cut-offs are computed in integers, never from a floating-point q.
//   - An absent figure is a nil pointer, never zero: a summary of no values
//     has Count 0 and nothing else; an interval that the sample cannot bound
//     is nil.
//   - NaN values are not observations: every function here skips them.
//   - Inputs are never modified.
//   - Times (rates and concurrency) are float64 seconds measured from any
//     fixed origin chosen by the caller, typically the start of measuring.
//
// The package depends on the standard library only.
package stats
