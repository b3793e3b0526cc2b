package wiring

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/llmprober/llmprober/config"
)

// fleetOf is n targets of max_concurrency c.
func fleetOf(n, c int) []config.Target {
	ts := make([]config.Target, n)
	for i := range ts {
		ts[i].Schedule.MaxConcurrency = c
	}
	return ts
}

// The limit on open files at start: raised to the hard limit when it is
// below the need, warned about when it stays below it, refused below the
// minimum. 50 targets of max_concurrency 8 need 50 × (2·8 + 2) + 8 + 64 =
// 972 descriptors, and at least 50 + 8 + 64 = 122.
func TestEnsureFileLimit(t *testing.T) {
	fleet := fleetOf(50, 8)
	if n, least := FileNeed(fleet), FileMinimum(fleet); n != 972 || least != 122 {
		t.Fatalf("need %d, minimum %d; want 972 and 122", n, least)
	}
	tests := []struct {
		name    string
		limit   FileLimit
		setErr  error
		targets []config.Target
		wantSet uint64 // 0: not set
		wantErr string
		wantLog string // "" for no log line
	}{
		{"30 of 30 for 50 targets: refused, naming both figures", FileLimit{30, 30}, nil, fleet, 0,
			"too few open files allowed: the limit on open files is 30 (hard limit 30), below the 122 that 50 targets need at least " +
				"(one connection each, 8 for the HTTP server, 64 for the process) and the 972 they need at their max_concurrency", ""},
		{"soft 30, hard 4096: raised", FileLimit{30, 4096}, nil, fleet, 4096, "",
			`level=INFO msg="raised the limit on open files to its hard limit" from=30 to=4096 need=972`},
		{"soft 30, hard 4096, the raise fails: refused", FileLimit{30, 4096}, errors.New("denied"), fleet, 4096,
			"the limit on open files is 30 (hard limit 4096)", ""},
		{"500 of 500: warned", FileLimit{500, 500}, nil, fleet, 0, "",
			`level=WARN msg="the limit on open files is below what the targets need at their max_concurrency; ` +
				`requests beyond it fail as incomplete with error type prober" limit=500 hard_limit=500 need=972`},
		{"122 of 122, the minimum: warned, runs", FileLimit{122, 122}, nil, fleet, 0, "", "limit=122 hard_limit=122 need=972"},
		// 2·8 + 2 + 8 + 64 = 90.
		{"enough: nothing", FileLimit{90, 90}, nil, fleetOf(1, 8), 0, "", ""},
		{"unknown: nothing", FileLimit{}, nil, fleet, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs syncBuffer
			var set uint64
			err := ensureFileLimit(tt.targets, slog.New(slog.NewTextHandler(&logs, nil)),
				func() FileLimit { return tt.limit }, func(n uint64) error { set = n; return tt.setErr })
			if set != tt.wantSet {
				t.Errorf("soft limit set to %d; want %d", set, tt.wantSet)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v; want none", err)
			case tt.wantErr != "" && (!errors.Is(err, ErrFileLimit) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v; want ErrFileLimit with %q", err, tt.wantErr)
			}
			if got := logs.String(); (tt.wantLog == "") != (got == "") || !strings.Contains(got, tt.wantLog) {
				t.Errorf("log %q; want %q", got, tt.wantLog)
			}
		})
	}
}
