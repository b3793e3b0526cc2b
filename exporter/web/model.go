package web

// Overview is the data of the overview page, every value formatted.
type Overview struct {
	// Version is the daemon's version; empty shows none.
	Version string
	// ConfigPath is where the running configuration is shown ("/config");
	// empty links to none.
	ConfigPath string
	// Window names the window whose figures the rows show ("1h").
	Window string
	// Confidence is the intervals' level ("95 %").
	Confidence string
	// Interval is the history's point length ("10s").
	Interval string
	// Targets are the rows, in configured order.
	Targets []OverviewTarget
}

// OverviewTarget is one target's row.
type OverviewTarget struct {
	// Name and Link are the target and its page.
	Name, Link string
	// State is the start-up state; StateClass one of waiting, ready, failed.
	State, StateClass string
	// Objectives are the SLO verdicts, one per objective set.
	Objectives []Objective
	// Rate, ErrorRatio and Drops are the window's figures.
	Rate, ErrorRatio, Drops string
	// LatencyQuantity is the history quantity of the latency sparkline
	// (time_to_first_token for a streamed target, else request_latency)
	// and LatencyTitle its label.
	LatencyQuantity, LatencyTitle string
}

// Objective is one objective set's verdict.
type Objective struct {
	// Name is the set's name; Verdict met, breached or inconclusive; Text
	// what the badge says ("met", "breaching", "not enough data").
	Name, Verdict, Text string
	// Attainment is the attainment with its interval per window.
	Attainment string
}

// TargetPage is the data of one target's page, every value formatted.
type TargetPage struct {
	// Version is the daemon's version; empty shows none.
	Version string
	// ConfigPath is where the running configuration is shown; empty links
	// to none.
	ConfigPath string
	// Name is the target's name.
	Name string
	// API links the target's JSON documents.
	API APILinks
	// Summary is the target's row of figures since start.
	Summary TargetRow
	// Interval and Retention describe the history ("10s", "6h").
	Interval, Retention string
	// Legend explains the windows table's notation.
	Legend string
	// Windows is the rolling-window table; nil without windows.
	Windows *WindowTable
	// Recent are the last finished requests, newest first.
	Recent []ProbeRow
}

// APILinks are the URLs of a target's JSON documents.
type APILinks struct {
	History, Recent string
	Windows         []Link
}

// Link is a named URL.
type Link struct{ Name, URL string }

// TargetRow is a target's figures since start.
type TargetRow struct {
	Name, Model, API, Stream, Server, State string
	Scheduled, Sent                         uint64
	Dropped                                 string
	Successful, Errored, Incomplete         uint64
}

// WindowTable is the rolling-window table of one target.
type WindowTable struct {
	Columns []Column
	Rows    []WindowRow
}

// Column is one summary or SLO column of the window table. Metric and
// Level ("p99", or "mean") name its figure in the JSON API's window
// document, Objective its objective set; the script refreshes the cells
// from them.
type Column struct {
	Title, Metric, Level, Objective string
}

// WindowRow is one window's row.
type WindowRow struct {
	Window, Probes, Requests, Rate, TokenRate, Concurrency string
	Cells                                                  []string
}

// ProbeRow is one recent request.
type ProbeRow struct {
	Time, Seq, Outcome, ErrorType, ErrorCode, Error, HTTPStatus string
	Latency, TTFT, TTFOT, ITL, TPOT, OutputTokens, Usage        string
}
