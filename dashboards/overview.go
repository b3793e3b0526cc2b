package dashboards

// Label matchers of the overview's queries of llmprober's own series.
const (
	byTarget    = byJob + `,target=~"$target"`
	byObjective = byTarget + `,objective=~"$objective"`
	byWindow    = byTarget + `,window="$window"`
	byObjWindow = byObjective + `,window="$window"`
	// byRule selects recording-rule series, which the bundled rules
	// aggregate by target and objective: they have no job label.
	byRule = `target=~"$target",objective=~"$objective"`
)

// Expressions shared by several overview panels.
const (
	// objectiveRatio is the attainment each objective set should reach.
	objectiveRatio = `max by (target, objective) (llmprober_slo_objective_ratio{` + byObjective + `})`
	// periodErrorRatio is the error ratio over the SLO period, from the
	// bundled recording rules.
	periodErrorRatio = `llmprober:slo_error_ratio:rate${period}{` + byRule + `}`
	// budgetLeft is the share of the period's error budget not yet spent.
	budgetLeft = `1 - ` + periodErrorRatio + ` / on (target, objective) (1 - ` + objectiveRatio + `)`
)

// Notes of the panels that read the recording rules.
const (
	// periodNote says which objective sets the period panels show.
	periodNote = " Only objective sets whose period is $period show here; pick another SLO period for the others."
	// ruleNote says why the job choice does not filter the rules' series.
	ruleNote = " The recording rules aggregate every job's series by target and objective, so the job choice does not filter them."
)

// Overview is the llmprober overview dashboard: per target and objective
// set, SLO attainment against the objective, error budget left, burn rates,
// goodput against request rate, requests by outcome beside dropped probes,
// errors by type, token throughput, and the
// percentiles of TTFT, TTFOT, ITL, TPOT, the round-trip metrics of
// realtime targets and request latency. Variables:
// datasource, job (the scrape job), target, objective (set), window (of the
// prober's rolling windows) and period (SLO period of the recording rules).
func Overview() (Board, error) {
	b := newLLMProberBoard("llmprober overview", "llmprober-overview",
		"Synthetic probes of LLM endpoints: SLOs, throughput, errors and latency, per target and objective set.").
		WithVariable(labelVariable(varObjective, "Objective set", `llmprober_slo_objective_ratio{`+byTarget+`}`,
			"Objective sets of the selected targets (the objective label).", true)).
		WithVariable(labelVariable(varWindow, "Window", `llmprober_window_length_seconds{`+byTarget+`}`,
			"Rolling window of the prober's own figures (exact percentiles, windowed attainment and goodput).", false)).
		WithVariable(periodVariable())
	sloPanels(b)
	throughputPanels(b)
	latencyPanels(b)
	return build(b)
}

// sloPanels adds the SLO row.
func sloPanels(b *boardBuilder) {
	b.WithRow(row("Service level objectives")).
		WithPanel(statPanel("Attainment over the SLO period",
			"Conforming ÷ evaluated requests over the SLO period ($period), from the recording rule llmprober:slo_error_ratio:rate$period."+
				periodNote+ruleNote,
			unitRatio, quarterWidth, q("1 - "+periodErrorRatio, "{{target}} {{objective}}")).
			Decimals(3)).
		WithPanel(statPanel("Objective", "The attainment each objective set should reach over its period.",
			unitRatio, quarterWidth, q(objectiveRatio, "{{target}} {{objective}}")).
			Decimals(3)).
		WithPanel(statPanel("Error budget left",
			"Share of the period's error budget (1 − objective) not yet spent: 1 − error ratio over the period ($period) ÷ (1 − objective). Negative when the objective is missed."+
				periodNote+ruleNote,
			unitRatio, halfWidth, q(budgetLeft, "{{target}} {{objective}}")).
			Decimals(1).
			Thresholds(thresholds("red", step{0, "orange"}, step{0.25, "yellow"}, step{0.5, "green"}))).
		WithPanel(stateChart("SLO verdict ($window window)",
			"Per instance, each objective set's verdict over the prober's $window window: met when the attainment interval (Wilson, at the prober's confidence) lies at or above the objective, breached when it lies below, inconclusive when it straddles it (too few requests to tell, or intervals turned off); a point value below the objective on a few requests is not a breach.",
			halfWidth, valueMap(mapping{"0", "breached", "red"}, mapping{"1", "inconclusive", "yellow"}, mapping{"2", "met", "green"}),
			q(verdictState, "{{target}} {{objective}} {{instance}}"))).
		WithPanel(chart("Attainment vs objective",
			"Attainment over the prober's $window window (conforming ÷ evaluated requests that ended in it), per instance, and over the SLO period, against the objective."+
				" The SLO period line shows only objective sets whose period is $period."+ruleNote,
			unitRatio, halfWidth,
			q(`llmprober_window_slo_attainment{`+byObjWindow+`}`, "{{target}} {{objective}} ($window window) {{instance}}"),
			q("1 - "+periodErrorRatio, "{{target}} {{objective}} ($period)"),
			q(objectiveRatio, "{{target}} {{objective}} objective"))).
		WithPanel(chart("Error budget left", "Share of the error budget of the SLO period ($period) not yet spent."+periodNote+ruleNote,
			unitRatio, halfWidth, q(budgetLeft, "{{target}} {{objective}}"))).
		WithPanel(chart("Burn rate",
			"Error ratio ÷ error budget (1 − objective) over the windows of the burn-rate alerts: 1 spends the budget exactly over the period; the page alerts fire at 14.4 (1h and 5m) and 6 (6h and 30m) for a 30-day period."+ruleNote,
			unitCount, halfWidth, burnRates("5m", "1h", "6h", "1d", "3d")...)).
		WithPanel(chart("Non-conforming requests by reason",
			"Evaluated requests that missed their objective set, by reason: the error type, insufficient_output, or the first breached quantity.",
			unitRequestsPerS, halfWidth,
			q(`sum by (target, objective, reason) (rate(llmprober_slo_requests_nonconforming_total{`+byObjective+`}[$__rate_interval]))`,
				"{{target}} {{objective}} {{reason}}")))
}

// verdictState is each objective set's window verdict as one number per
// instance: 2 met, 1 inconclusive, 0 breached (the state set has 1 on the
// current verdict and 0 on the others).
const verdictState = `max by (target, objective, instance) (2 * llmprober_window_slo_verdict{` + byObjWindow + `,verdict="met"}` +
	` + ignoring (verdict) llmprober_window_slo_verdict{` + byObjWindow + `,verdict="inconclusive"})`

// burnRates returns one burn-rate query per recording-rule window.
func burnRates(windows ...string) []query {
	out := make([]query, 0, len(windows))
	for _, w := range windows {
		out = append(out, q(`llmprober:slo_error_ratio:rate`+w+`{`+byRule+`} / on (target, objective) (1 - `+objectiveRatio+`)`,
			"{{target}} {{objective}} "+w))
	}
	return out
}

// throughputPanels adds the throughput and errors row.
func throughputPanels(b *boardBuilder) {
	b.WithRow(row("Throughput and errors")).
		WithPanel(chart("Goodput vs request rate",
			"Finished requests per second against conforming requests per second (goodput), from the counters and, per instance, from the prober's $window window.",
			unitRequestsPerS, halfWidth,
			q(`sum by (target) (rate(llmprober_requests_total{`+byTarget+`}[$__rate_interval]))`, "{{target}} requests"),
			q(`sum by (target, objective) (rate(llmprober_slo_requests_conforming_total{`+byObjective+`}[$__rate_interval]))`,
				"{{target}} goodput ({{objective}})"),
			q(`llmprober_window_goodput_requests_per_second{`+byObjWindow+`}`, "{{target}} goodput ({{objective}}, $window window) {{instance}}"))).
		WithPanel(chart("Token throughput",
			"Prompt (input) and output tokens of successful requests per second, and output tokens of conforming requests per second over the $window window, per instance.",
			unitTokensPerS, halfWidth,
			q(`sum by (target, gen_ai_token_type) (rate(gen_ai_client_token_usage_sum{`+byTarget+`}[$__rate_interval]))`,
				"{{target}} {{gen_ai_token_type}}"),
			q(`llmprober_window_goodput_output_tokens_per_second{`+byObjWindow+`}`,
				"{{target}} output goodput ({{objective}}, $window window) {{instance}}"))).
		WithPanel(chart("Requests by outcome", "Finished requests per second: successful, errored, incomplete (cancelled by shutdown).",
			unitRequestsPerS, quarterWidth,
			q(`sum by (target, outcome) (rate(llmprober_requests_total{`+byTarget+`}[$__rate_interval]))`, "{{target}} {{outcome}}"))).
		WithPanel(chart("Probes dropped",
			"Due probes never sent, per second, by reason: queue_full (the backlog exceeded max_queue: the figures beside miss those requests), shutdown.",
			unitRequestsPerS, quarterWidth,
			q(`sum by (target, reason) (rate(llmprober_probes_dropped_total{`+byTarget+`}[$__rate_interval]))`, "{{target}} {{reason}}"))).
		WithPanel(chart("Errors by type", "Errored requests per second by error type.",
			unitRequestsPerS, quarterWidth,
			q(`sum by (target, error_type) (rate(llmprober_requests_total{`+byTarget+`,outcome="errored"}[$__rate_interval]))`,
				"{{target}} {{error_type}}"))).
		WithPanel(chart("Error ratio", "Errored ÷ successful and errored requests.",
			unitRatio, quarterWidth,
			q(`sum by (target) (rate(llmprober_requests_total{`+byTarget+`,outcome="errored"}[$__rate_interval]))
/
sum by (target) (rate(llmprober_requests_total{`+byTarget+`,outcome!="incomplete"}[$__rate_interval]))`, "{{target}}")))
}

// latencyQuantity is one per-request duration of the latency row.
type latencyQuantity struct {
	title, desc string
	// family is the histogram family name, matchers its extra matchers.
	family, matchers string
	// metric is the window gauges' metric label of the quantity.
	metric string
}

// latencyQuantities are the latency row's panels, in order.
var latencyQuantities = []latencyQuantity{
	{"Time to first token", "First token event minus request start, successful streamed requests.",
		"llmprober_time_to_first_token_seconds", "", "time_to_first_token"},
	{"Time to first output token", "First event with visible content minus request start (later than TTFT after reasoning or tool-call tokens).",
		"llmprober_time_to_first_output_token_seconds", "", "time_to_first_output_token"},
	{"Inter-token latency", "(last token − first token) ÷ (output tokens − 1), one value per request; the window percentile is token-weighted.",
		"llmprober_inter_token_latency_seconds", "", "inter_token_latency"},
	{"Time per output token", "(last token − request start) ÷ output tokens, one value per request; the window percentile is token-weighted.",
		"llmprober_time_per_output_token_seconds", "", "time_per_output_token"},
	{"Time to last round trip (realtime)", "Last received transcript delta minus last sent audio packet, successful realtime WebSocket requests.",
		"llmprober_time_to_last_round_trip_seconds", "", "time_to_last_round_trip"},
	{"Average round-trip time (realtime)", "Mean receive time of the transcript deltas minus mean send time of the audio packets, successful realtime WebSocket requests.",
		"llmprober_average_round_trip_time_seconds", "", "average_round_trip_time"},
	{"Request latency", "Response end minus request start, successful requests (gen_ai.client.operation.duration without error.type).",
		"gen_ai_client_operation_duration_seconds", `,error_type=""`, "request_latency"},
}

// latencyPanels adds the latency row: histogram p50, p90 and p99 over
// $__rate_interval, and the exact p99 of the prober's window.
func latencyPanels(b *boardBuilder) {
	b.WithRow(row("Latency"))
	for i, lq := range latencyQuantities {
		w := uint32(halfWidth)
		if i == len(latencyQuantities)-1 {
			w = fullWidth
		}
		m := byTarget + lq.matchers
		b.WithPanel(chart(lq.title,
			lq.desc+" p50, p90 and p99 estimated from the histogram buckets, and the exact p99 of the $window window per instance.",
			unitSeconds, w,
			q(quantile("0.5", lq.family, m), "{{target}} p50"),
			q(quantile("0.9", lq.family, m), "{{target}} p90"),
			q(quantile("0.99", lq.family, m), "{{target}} p99"),
			q(`llmprober_window_percentile_seconds{`+byWindow+`,metric="`+lq.metric+`",percentile="p99"}`,
				"{{target}} p99 exact ($window window) {{instance}}")))
	}
}
