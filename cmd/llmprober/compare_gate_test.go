package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gateSummary is a successful-request summary whose mean and percentiles
// are v with the interval [0.9 v, 1.1 v], p99 without one.
func gateSummary(v float64) map[string]any {
	ci := map[string]any{"lower": 0.9 * v, "upper": 1.1 * v}
	pct := map[string]any{}
	for _, l := range compareLevels {
		pct[l] = map[string]any{"value": v, "ci": ci}
	}
	pct["p99"] = map[string]any{"value": v, "ci": nil}
	return map[string]any{"mean": v, "mean_ci": ci, "percentiles": pct}
}

// noIntervals returns summary s (of gateSummary) without its intervals,
// as a report of a run with --confidence null has it.
func noIntervals(s map[string]any) map[string]any {
	s["mean_ci"] = nil
	for _, p := range s["percentiles"].(map[string]any) {
		p.(map[string]any)["ci"] = nil
	}
	return s
}

// gateBenchmark is one benchmark of 100 successful requests: request
// latency 0.1 s, TTFT 0.02 s, objective set default at 0.99 [0.95, 1].
func gateBenchmark() map[string]any {
	return map[string]any{
		"config": map[string]any{"target": "t"},
		"window": map[string]any{
			"measuring": true, "confidence": 0.95,
			"requests": map[string]any{"successful": 100, "errored": 0, "incomplete": 0, "all": 100},
			"summaries": map[string]any{
				"request_latency":     map[string]any{"successful": gateSummary(0.1)},
				"time_to_first_token": map[string]any{"successful": gateSummary(0.02)},
			},
		},
		"slo": []any{map[string]any{"objective": "default", "attainment": 0.99, "attainment_ci": map[string]any{"lower": 0.95, "upper": 1}}},
	}
}

// gateReport writes a report of gateBenchmark changed by change.
func gateReport(t *testing.T, name string, change func(b, w map[string]any)) string {
	t.Helper()
	b := gateBenchmark()
	if change != nil {
		change(b, b["window"].(map[string]any))
	}
	doc, err := json.Marshal(map[string]any{"schema": benchSchema, "benchmarks": []any{b}})
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, string(doc))
}

// row is a line of compare's table: the figure, base and new values and
// the call.
func row(name, base, next, call string) string {
	return fmt.Sprintf("  %-32s %-30s %-30s %s\n", name, base, next, call)
}

// summaries returns window w's summaries.
func summaries(w map[string]any) map[string]any { return w["summaries"].(map[string]any) }

// TestFaultMatrixCompareGate: the gate fails closed. Every shape of NEW
// that leaves a figure of BASE without its counterpart — no successful
// request, no window, a window that never measured, a figure or an
// objective set absent or null, an interval BASE has and NEW lacks — exits 3
// with --fail-on-regression, naming the figures
// and why; a figure only NEW has is reported and passes; a higher error
// rate beyond both intervals is a regression (exit 1), which wins over
// what cannot be compared. Without --fail-on-regression the same are
// printed and compare exits 0.
func TestFaultMatrixCompareGate(t *testing.T) {
	base := gateReport(t, "base.json", nil)
	noSuccess := func(b, w map[string]any) {
		w["requests"] = map[string]any{"successful": 0, "errored": 0, "incomplete": 7, "all": 7}
		summaries(w)["request_latency"] = map[string]any{"successful": map[string]any{"mean": nil, "percentiles": map[string]any{}}}
		delete(summaries(w), "time_to_first_token")
		b["slo"] = []any{map[string]any{"objective": "default", "attainment": nil, "attainment_ci": nil}}
	}
	tests := []struct {
		name   string
		change func(b, w map[string]any)
		code   int
		want   []string
	}{
		{"identical", nil, 0, []string{row("request_latency mean", "0.1 [0.09, 0.11]", "0.1 [0.09, 0.11]", "no significant difference"),
			row("error rate", "0 [0, 0.03699]", "0 [0, 0.03699]", "no significant difference")}},
		{"NEW all errored", func(b, w map[string]any) {
			noSuccess(b, w)
			w["requests"] = map[string]any{"successful": 0, "errored": 100, "incomplete": 0, "all": 100}
			b["slo"] = []any{map[string]any{"objective": "default", "attainment": 0, "attainment_ci": map[string]any{"lower": 0, "upper": 0.037}}}
		}, 1, []string{
			"cannot compare: NEW: 0 successful requests (100 errored, 0 incomplete)",
			row("request_latency mean", "0.1 [0.09, 0.11]", "—", "cannot compare: present in BASE, absent in NEW"),
			row("time_to_first_token p99", "0.02", "—", "cannot compare: present in BASE, absent in NEW"),
			row("error rate", "0 [0, 0.03699]", "1 [0.963, 1]", "higher: regression"),
			row("slo default attainment", "0.99 [0.95, 1]", "0 [0, 0.037]", "lower: regression"),
			"2 figure(s) got significantly worse, and 11 figure(s) or window(s) could not be compared",
		}},
		{"NEW with no finished request", noSuccess, 3, []string{
			"cannot compare: NEW: 0 successful requests (0 errored, 7 incomplete)",
			row("time_to_first_token mean", "0.02 [0.018, 0.022]", "—", "cannot compare: present in BASE, absent in NEW"),
			row("error rate", "0 [0, 0.03699]", "—", "cannot compare: present in BASE, absent in NEW"),
			row("slo default attainment", "0.99 [0.95, 1]", "—", "cannot compare: present in BASE, absent in NEW"),
			"cannot compare: 13 figure(s) or window(s) could not be compared",
		}},
		{"NEW without a window", func(_, w map[string]any) {
			clear(w)
		}, 3, []string{"cannot compare: NEW: no measurement window (the run ended before its warmup did)",
			row("request_latency p50", "0.1 [0.09, 0.11]", "—", "cannot compare: present in BASE, absent in NEW")}},
		{"NEW window null", func(b, _ map[string]any) {
			b["window"] = nil
		}, 3, []string{"cannot compare: NEW: no measurement window\n", "12 figure(s) or window(s) could not be compared"}},
		{"a percentile null in NEW", func(_, w map[string]any) {
			summaries(w)["time_to_first_token"].(map[string]any)["successful"].(map[string]any)["percentiles"].(map[string]any)["p95"] =
				map[string]any{"value": nil, "ci": nil}
		}, 3, []string{row("time_to_first_token p95", "0.02 [0.018, 0.022]", "—", "cannot compare: present in BASE, absent in NEW"),
			"cannot compare: 1 figure(s)"}},
		{"a metric absent in NEW", func(_, w map[string]any) {
			delete(summaries(w), "time_to_first_token")
		}, 3, []string{"cannot compare: 5 figure(s)"}},
		{"an objective set absent in NEW", func(b, _ map[string]any) {
			b["slo"] = []any{}
		}, 3, []string{row("slo default attainment", "0.99 [0.95, 1]", "—", "cannot compare: present in BASE, absent in NEW")}},
		{"a figure only NEW has", func(b, w map[string]any) {
			summaries(w)["dispatch_delay"] = map[string]any{"successful": gateSummary(0.001)}
			b["slo"] = append(b["slo"].([]any), map[string]any{"objective": "strict", "attainment": 0.5, "attainment_ci": nil})
		}, 0, []string{row("dispatch_delay mean", "—", "0.001 [0.0009, 0.0011]", "absent in BASE: not compared"),
			row("slo strict attainment", "—", "0.5", "absent in BASE: not compared")}},
		{"NEW without intervals (--confidence null), TTFT 10 times BASE's", func(b, w map[string]any) {
			w["confidence"] = nil
			summaries(w)["request_latency"] = map[string]any{"successful": noIntervals(gateSummary(0.1))}
			summaries(w)["time_to_first_token"] = map[string]any{"successful": noIntervals(gateSummary(0.2))}
			b["slo"] = []any{map[string]any{"objective": "default", "attainment": 0.99, "attainment_ci": nil}}
		}, 3, []string{
			row("time_to_first_token mean", "0.02 [0.018, 0.022]", "0.2", "cannot compare: interval in BASE, none in NEW"),
			row("time_to_first_token p50", "0.02 [0.018, 0.022]", "0.2", "cannot compare: interval in BASE, none in NEW"),
			row("time_to_first_token p99", "0.02", "0.2", "no interval"),
			row("error rate", "0 [0, 0.03699]", "0", "cannot compare: interval in BASE, none in NEW"),
			row("slo default attainment", "0.99 [0.95, 1]", "0.99", "cannot compare: interval in BASE, none in NEW"),
			// request latency and TTFT: mean, p50, p90, p95 each (p99 has no interval in BASE); error rate; attainment.
			"cannot compare: 10 figure(s) or window(s) could not be compared",
		}},
		{"a percentile's interval null in NEW, its value 10 times BASE's", func(_, w map[string]any) {
			summaries(w)["time_to_first_token"].(map[string]any)["successful"].(map[string]any)["percentiles"].(map[string]any)["p95"] =
				map[string]any{"value": 0.2, "ci": nil}
		}, 3, []string{row("time_to_first_token p95", "0.02 [0.018, 0.022]", "0.2", "cannot compare: interval in BASE, none in NEW"),
			"cannot compare: 1 figure(s)"}},
		{"error rate higher", func(_, w map[string]any) {
			w["requests"] = map[string]any{"successful": 70, "errored": 30, "incomplete": 0, "all": 100}
		}, 1, []string{row("error rate", "0 [0, 0.03699]", "0.3 [0.2189, 0.3958]", "higher: regression")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := gateReport(t, "new.json", tc.change)
			code, out := runCompare(t, "--fail-on-regression", base, next)
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if code, out := runCompare(t, base, next); code != 0 {
				t.Errorf("without --fail-on-regression: exit %d, want 0:\n%s", code, out)
			}
		})
	}
}

// TestFaultMatrixCompareBaseEmpty: a BASE without successful requests has
// nothing to gate against: the comparison cannot be made (exit 3), even
// though every figure of NEW is new.
func TestFaultMatrixCompareBaseEmpty(t *testing.T) {
	base := gateReport(t, "base.json", func(_, w map[string]any) {
		w["requests"] = map[string]any{"successful": 0, "errored": 0, "incomplete": 0, "all": 0}
		w["summaries"] = map[string]any{}
	})
	next := gateReport(t, "new.json", nil)
	code, out := runCompare(t, "--fail-on-regression", base, next)
	if code != 3 || !strings.Contains(out, "cannot compare: BASE: 0 successful requests (0 errored, 0 incomplete)") {
		t.Errorf("exit %d, want 3 and BASE's problem:\n%s", code, out)
	}
}

// TestFaultMatrixCompareInputs: an input that is not a regular bench
// report is bad input (exit 2), found at once — a named pipe with no
// writer, a device that never ends, a directory, a file past the 32 GiB
// limit (sparse), a missing file, text that is not JSON, a report without
// benchmarks, reports of different lengths — with an error naming the
// side and the file, never "invalid configuration".
func TestFaultMatrixCompareInputs(t *testing.T) {
	dir := t.TempDir()
	base := gateReport(t, "base.json", nil)
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 32<<30+1); err != nil {
		t.Skipf("no sparse file: %v", err)
	}
	two := writeFile(t, "two.json", `{"schema": "llmprober-bench/v1", "benchmarks": [{}, {}]}`)
	fiveSLOs := gateReport(t, "five.json", func(b, _ map[string]any) {
		var slo []any
		for i := range 5 {
			slo = append(slo, map[string]any{"objective": fmt.Sprint("o", i), "attainment": 1})
		}
		b["slo"] = slo
	})
	tooMany := writeFile(t, "53.json", `{"schema": "llmprober-bench/v1", "benchmarks": [{}`+strings.Repeat(", {}", 52)+`]}`)
	for _, tc := range []struct{ name, next, want string }{
		{"53 benchmarks, one more than a sweep runs", tooMany, `within "/benchmarks": more than 52 benchmarks, the most a sweep runs`},
		{"5 objective sets, one more than a target has", fiveSLOs, `within "/benchmarks/0/slo": more than 4 objective sets, the most a target has`},
		{"named pipe", fifo, "could not read NEW report " + fifo + ": bench report is not a regular file (it is a named pipe)"},
		{"device", "/dev/zero", "could not read NEW report /dev/zero: bench report is not a regular file (it is a device)"},
		{"directory", dir, "could not read NEW report " + dir + ": bench report is not a regular file (it is a directory)"},
		{"too large", huge, "bench report is too large: larger than 32 GiB, the limit for bench reports"},
		{"missing", filepath.Join(dir, "none.json"), "could not read NEW report " + filepath.Join(dir, "none.json") +
			": could not open bench report: no such file or directory"},
		{"not JSON", writeFile(t, "text.json", "hello"), "could not read NEW report"},
		{"no benchmarks", writeFile(t, "none.json", `{"schema": "llmprober-bench/v1", "benchmarks": []}`), "none.json: no benchmarks"},
		{"benchmarks differ", two, "could not compare: BASE " + base + " has 1 benchmarks, NEW " + two + " 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var code int
			var out string
			go func() { code, out = runCompare(t, "--fail-on-regression", base, tc.next); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("compare still reading after 10 s")
			}
			if code != 2 || !strings.Contains(out, tc.want) || strings.Contains(out, "invalid configuration") {
				t.Errorf("exit %d, want 2 and %q:\n%s", code, tc.want, out)
			}
		})
	}
}

// TestCompareReadsLargeReportsInBoundedMemory: the records of a report
// (here 4 MiB of them) are skipped as the file is read, never held: the
// comparison of a report with itself allocates less than 1 MiB in all
// (about 160 KiB), where reading both files would take 8 MiB.
func TestCompareReadsLargeReportsInBoundedMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.json")
	writeLargeReport(t, path, 4<<20)
	if fi, err := os.Stat(path); err != nil || fi.Size() < 4<<20 {
		t.Fatalf("report of %v bytes (%v), want 40 MiB", fi.Size(), err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, out := runCompare(t, "--fail-on-regression", path, path)
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("comparing two 4 MiB reports allocated %d bytes, want under 1 MiB", alloc)
	}
}

// TestCompareSkipsUnknownMembers: members compare does not read — 100 000
// of them, 5 MB, in a window's requests, its summaries and a summary's
// percentiles — are skipped as the file is read, never kept: the
// comparison allocates less than 1 MiB in all, as for a report without
// them (a map keeping them would take about 10 MB), and its table is the
// same.
func TestCompareSkipsUnknownMembers(t *testing.T) {
	base := gateReport(t, "base.json", nil)
	const n = 100000
	members := func(format string) map[string]any {
		m := make(map[string]any, n/3)
		for i := range n / 3 {
			m[fmt.Sprintf(format, i)] = nil
		}
		return m
	}
	padded := gateReport(t, "padded.json", func(_, w map[string]any) {
		for k, v := range members("outcome_%d") {
			w["requests"].(map[string]any)[k] = v
		}
		for k, v := range members("metric_%d") {
			summaries(w)[k] = v
		}
		pct := summaries(w)["time_to_first_token"].(map[string]any)["successful"].(map[string]any)["percentiles"].(map[string]any)
		for k, v := range members("p%d.5") {
			pct[k] = v
		}
	})
	_, want := runCompare(t, "--fail-on-regression", base, base)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, out := runCompare(t, "--fail-on-regression", base, padded)
	runtime.ReadMemStats(&after)
	if code != 0 || out != want {
		t.Fatalf("exit %d, want 0 and the table of base against itself:\n%s\nwant:\n%s", code, out, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("a report with %d members compare does not read allocated %d bytes, want under 1 MiB", n, alloc)
	}
}

// writeLargeReport writes gateBenchmark's report with records of at
// least size bytes, record by record.
func writeLargeReport(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	w := bufio.NewWriter(f)
	b := gateBenchmark()
	win, err := json.Marshal(b["window"])
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, `{"schema": %q, "benchmarks": [{"config": {"target": "t"}, "window": %s, "records": {"requests": [`, benchSchema,
		strings.TrimSuffix(string(win), "}"))
	const record = `{"outcome": "successful", "request_start": "2026-01-01T00:00:00Z", "values": {"ttft": 0.02, "request_latency": 0.1}}`
	for n := 0; n < size; n += len(record) + 1 {
		if n > 0 {
			_, _ = w.WriteString(",")
		}
		_, _ = w.WriteString(record)
	}
	_, _ = w.WriteString(`]}}, "slo": [{"objective": "default", "attainment": 0.99, "attainment_ci": {"lower": 0.95, "upper": 1}}]}]}`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// FuzzCompareReport compares a fixed BASE with any NEW: compare never
// panics, exits 0, 1, 2 or 3, and exits 0 under --fail-on-regression
// only when nothing is marked a regression or cannot compare — the gate
// never passes a NEW it could not read in full.
func FuzzCompareReport(f *testing.F) {
	b := gateBenchmark()
	seed, err := json.Marshal(map[string]any{"schema": benchSchema, "benchmarks": []any{b}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"schema": "llmprober-bench/v1", "benchmarks": [{"window": null, "slo": null}]}`))
	f.Add([]byte(`{"schema": "llmprober-bench/v1", "benchmarks": [{"window": {"measuring": true, "requests": {"successful": 1}, ` +
		`"summaries": {"request_latency": {"successful": {"mean": 1, "percentiles": {"p50": {"value": null}}}}}}}]}`))
	f.Add([]byte(`{"schema": "llmprober-bench/v1", "benchmarks": [{}]}`))
	f.Add([]byte(`not json`))
	dir := f.TempDir()
	base := filepath.Join(dir, "base.json")
	if err := os.WriteFile(base, seed, 0o600); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		next := filepath.Join(t.TempDir(), "new.json")
		if err := os.WriteFile(next, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out := runCompare(t, "--fail-on-regression", base, next)
		switch {
		case code < 0 || code > 3:
			t.Errorf("exit %d:\n%s", code, out)
		case code == 0 && (strings.Contains(out, "cannot compare") || strings.Contains(out, "regression")):
			t.Errorf("exit 0 with a figure not passed:\n%s", out)
		}
	})
}
