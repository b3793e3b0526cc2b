// Package slo holds llmprober's service-level objectives: objective sets of
// per-request thresholds, the per-request verdict (conforming,
// non-conforming with a reason, or excluded), and the generation of
// Prometheus recording and multi-window multi-burn-rate alert rules.
//
// Verdict precedence, first match wins:
//  1. an incomplete request (cancelled by the prober) is excluded;
//  2. an errored request is non-conforming, reason its error type (or
//     "errored" when it has none);
//  3. a configured quantity that can never be measured on this request (TTFT,
//     TTFOT or ITL on a non-streamed request, scheduled latency without an
//     arrival schedule) excludes the request as not evaluable;
//  4. a successful request too short to define a configured quantity (no
//     token under TTFT, fewer than 2 tokens under ITL, no visible content
//     under TTFOT, no output token under TPOT) is non-conforming, reason
//     "insufficient_output";
//  5. a quantity above its threshold makes the request non-conforming, with
//     the first breached quantity in the fixed order of [Quantities] as its
//     reason (one reason per request, so the reasons sum to the
//     non-conforming count);
//  6. otherwise the request conforms (every quantity ≤ its threshold).
package slo
