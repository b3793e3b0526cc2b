package exporter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/llmprober/llmprober/slo"
)

// TestOverflowLoggedOnceAndCounted gives the SDK a limit of 5 attribute
// sets and 6 targets: every per-target instrument overflows. Three scrapes
// log one warning per instrument; the third shows the two collections
// counted before it.
func TestOverflowLoggedOnceAndCounted(t *testing.T) {
	var logs bytes.Buffer
	m, err := NewMetrics(context.Background(), Options{Version: "1", Getenv: noEnv, CardinalityLimit: 5,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	var targets []Target
	for i := range 6 {
		targets = append(targets, Target{Name: fmt.Sprintf("t%d", i), API: "chat", Stream: true})
	}
	if _, err := NewObserver(m, targets); err != nil {
		t.Fatal(err)
	}
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body, _ := io.ReadAll(rec.Body)
		return string(body)
	}
	scrape()
	scrape()
	body := scrape()
	// llmprober_probes_scheduled_total has one set per target: 6 > 5.
	if !strings.Contains(body, `llmprober_series_overflow_total{instrument="llmprober_probes_scheduled_total"} 2`) {
		t.Errorf("overflow not counted twice for probes_scheduled:\n%s", grepLines(body, "series_overflow"))
	}
	if n := strings.Count(logs.String(), `instrument=llmprober_probes_scheduled_total`); n != 1 {
		t.Errorf("%d warnings for probes_scheduled, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "path=prometheus") {
		t.Errorf("warning lacks its level or path: %s", logs.String())
	}
}

// TestNoOverflowWithTheBudgetLimit: the limit SeriesBudget sizes for 1000
// targets with the default window gauges (twice the 21 000 sets of the
// p99 gauge) keeps every series, the 11 000 non-conforming ones too.
func TestNoOverflowWithTheBudgetLimit(t *testing.T) {
	var targets []Target
	for i := range 1000 {
		targets = append(targets, Target{Name: fmt.Sprintf("t%d", i), API: "chat", Stream: true,
			Objectives: []slo.Objective{alphaObjective}})
	}
	b, err := SeriesBudget(targets, 3, Options{Getenv: noEnv, WindowGauges: &defaultGauges})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	m, err := NewMetrics(context.Background(), Options{Version: "1", Getenv: noEnv, CardinalityLimit: b.CardinalityLimit(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	if _, err := NewObserver(m, targets); err != nil {
		t.Fatal(err)
	}
	mfs := gather(t, m)
	// 1000 × (7 error types + 2 + 2 thresholds) = 11000 non-conforming sets.
	if got := len(findFamily(mfs, "llmprober_slo_requests_nonconforming_total").GetMetric()); got != 11000 || b.CardinalityLimit() != 42000 {
		t.Errorf("non-conforming series %d, limit %d; want 11000, 42000", got, b.CardinalityLimit())
	}
	for _, mf := range mfs {
		if familyOverflowed(mf) {
			t.Errorf("%s overflowed", mf.GetName())
		}
	}
	if logs.Len() > 0 {
		t.Errorf("logs: %s", logs.String())
	}
}

// findFamily returns the family called name, or nil.
func findFamily(mfs []*dto.MetricFamily, name string) *dto.MetricFamily {
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf
		}
	}
	return nil
}

// grepLines returns the lines of text containing s.
func grepLines(text, s string) string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
