package dashboards

// gateState is each target's start-up state per llmprober instance, as the
// state timeline encodes it: 1 waiting, 2 ready, 3 failed. Each instance
// sets exactly one of its target's state series to 1, so the sum is one of
// the codes; aggregating over instances would add one instance's waiting to
// another's ready and read 3 (failed).
const gateState = `max by (job, instance, target) (llmprober_target_state{` + byTarget + `,state="waiting"})
+ 2 * max by (job, instance, target) (llmprober_target_state{` + byTarget + `,state="ready"})
+ 3 * max by (job, instance, target) (llmprober_target_state{` + byTarget + `,state="failed"})`

// ProberHealth is the dashboard of llmprober itself: whether it keeps its
// schedule (dispatch delay, dropped probes, requests in flight), the
// start-up gate of each target, which replicas report, whether its OTLP
// exports succeed, and its CPU and memory. Variables: datasource, job and
// target.
func ProberHealth() (Board, error) {
	b := newLLMProberBoard("llmprober prober health", "llmprober-prober-health",
		"Whether llmprober keeps its schedule, passes its start-up gates, reports and exports.")
	schedulePanels(b)
	gatePanels(b)
	exportPanels(b)
	return build(b)
}

// schedulePanels adds the schedule row.
func schedulePanels(b *boardBuilder) {
	b.WithRow(row("Schedule")).
		WithPanel(chart("Dispatch delay",
			"Request start minus targeted start (open-loop strategies): how late probes go out. Think time of conversations counts too.",
			unitSeconds, halfWidth,
			q(quantile("0.5", "llmprober_dispatch_delay_seconds", byTarget), "{{target}} p50"),
			q(quantile("0.99", "llmprober_dispatch_delay_seconds", byTarget), "{{target}} p99"))).
		WithPanel(chart("Probes scheduled and dropped",
			"Probes that became due, and due probes never sent (queue_full: the backlog exceeded max_queue; shutdown), per second.",
			unitRequestsPerS, halfWidth,
			q(`sum by (target) (rate(llmprober_probes_scheduled_total{`+byTarget+`}[$__rate_interval]))`, "{{target}} scheduled"),
			q(`sum by (target, reason) (rate(llmprober_probes_dropped_total{`+byTarget+`}[$__rate_interval]))`,
				"{{target}} dropped ({{reason}})"))).
		WithPanel(statPanel("Probes dropped", "Due probes never sent over the selected time range, by reason.",
			unitCount, halfWidth,
			q(`sum by (target, reason) (increase(llmprober_probes_dropped_total{`+byTarget+`}[$__range]))`, "{{target}} {{reason}}")).
			Thresholds(thresholds("green", step{1, "red"})).
			Height(chartHeight)).
		WithPanel(chart("Requests in flight", "Requests sent and not yet finished.",
			unitCount, halfWidth,
			q(`sum by (target) (llmprober_requests_in_flight{`+byTarget+`})`, "{{target}}")))
}

// gatePanels adds the start-up gate row.
func gatePanels(b *boardBuilder) {
	b.WithRow(row("Start-up gate")).
		WithPanel(stateChart("Start-up gate state",
			"Per llmprober instance: waiting: the readiness check has not passed yet; ready: probing; failed: not ready within startup_timeout (checks go on).",
			halfWidth, valueMap(mapping{"1", "waiting", "yellow"}, mapping{"2", "ready", "green"}, mapping{"3", "failed", "red"}),
			q(gateState, "{{target}} {{instance}}"))).
		WithPanel(chart("Time in start-up gate", "Time each target spent waiting for its readiness check, as of its last state change.",
			unitSeconds, halfWidth,
			q(`max by (target) (llmprober_target_startup_wait_seconds{`+byTarget+`})`, "{{target}}")))
}

// ownProcesses keeps the series of llmprober's own processes: those whose
// job and instance also have llmprober_build_info, so that another process
// scraped by the same job (a vLLM behind the same Service) stays out.
const ownProcesses = ` and on (job, instance) llmprober_build_info{` + byJob + `}`

// reporting keeps the processes that report as the bundled rules count
// them: a heartbeat at most slo.DefaultMaxReportAge old.
const reporting = ` and on (job, instance) (time() - llmprober_collection_timestamp_seconds{` + byJob + `} <= 180)`

// exportPanels adds the reporting and export row. Each of its queries has
// data whether Prometheus scrapes llmprober or receives its metrics by OTLP
// through a collector (which sets job and instance from service.name and
// service.instance.id): build info, the heartbeat, the Go and process
// collectors and the OTLP export counter travel both ways.
func exportPanels(b *boardBuilder) {
	b.WithRow(row("Reporting and export")).
		WithPanel(stateChart("Replicas reporting",
			"Each llmprober process (job, instance) that reports as the bundled rules count it: its heartbeat at most 3 minutes old (rules --max-report-age); a gap is a replica that stopped reporting (see LLMProberDown, LLMProberReplicaMissing).",
			halfWidth, valueMap(mapping{"1", "reporting", "green"}),
			q(`max by (job, instance) (llmprober_build_info{`+byJob+`})`+reporting, "{{job}} {{instance}}"))).
		WithPanel(chart("Report age",
			"How old each process's heartbeat (llmprober_collection_timestamp_seconds, the time of the scrape or OTLP export that read its metrics) is now: by scrape about the scrape interval, through a collector up to the export interval plus the collector's scrape interval; it grows while a collector replays a dead process's last values.",
			unitSeconds, halfWidth,
			q(`time() - max by (job, instance) (llmprober_collection_timestamp_seconds{`+byJob+`})`, "{{job}} {{instance}}"))).
		WithPanel(chart("OTLP exports",
			"OTLP metric exports per second by outcome (success, failure); no data when OTLP is not enabled (OTEL_METRICS_EXPORTER=otlp).",
			unitOpsPerS, halfWidth,
			q(`sum by (instance, outcome) (rate(llmprober_otlp_exports_total{`+byJob+`}[$__rate_interval]))`, "{{instance}} {{outcome}}"))).
		WithPanel(chart("CPU", "CPU time used by each llmprober process per second (1 = one core); other processes of the job are left out.",
			unitRatio, halfWidth,
			q(`rate(process_cpu_seconds_total{`+byJob+`}[$__rate_interval])`+ownProcesses, "{{instance}}"))).
		WithPanel(chart("Resident memory", "Resident set size of each llmprober process; other processes of the job are left out.",
			unitBytes, halfWidth, q(`process_resident_memory_bytes{`+byJob+`}`+ownProcesses, "{{instance}}")))
}
