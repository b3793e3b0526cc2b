package dashboards_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/prometheus/prometheus/tsdb/chunks"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/llmprober/llmprober/dashboards"
)

// floatSample is a float sample at t milliseconds.
type floatSample struct {
	t int64
	f float64
}

func (s floatSample) T() int64                    { return s.t }
func (floatSample) ST() int64                     { return 0 }
func (s floatSample) F() float64                  { return s.f }
func (floatSample) H() *histogram.Histogram       { return nil }
func (floatSample) FH() *histogram.FloatHistogram { return nil }
func (floatSample) Type() chunkenc.ValueType      { return chunkenc.ValFloat }
func (s floatSample) Copy() chunks.Sample         { return s }

// seriesList is a storage.SeriesSet over a slice.
type seriesList struct {
	series []storage.Series
	next   int
}

func (s *seriesList) Next() bool {
	s.next++
	return s.next <= len(s.series)
}

func (s *seriesList) At() storage.Series              { return s.series[s.next-1] }
func (*seriesList) Err() error                        { return nil }
func (*seriesList) Warnings() annotations.Annotations { return nil }

// memQueryable serves series from memory, selecting them by matchers.
func memQueryable(series []storage.Series) storage.Queryable {
	return &storage.MockQueryable{MockQuerier: &storage.MockQuerier{
		SelectMockFunction: func(_ bool, _ *storage.SelectHints, ms ...*labels.Matcher) storage.SeriesSet {
			var out []storage.Series
			for _, s := range series {
				if !slices.ContainsFunc(ms, func(m *labels.Matcher) bool { return !m.Matches(s.Labels().Get(m.Name)) }) {
					out = append(out, s)
				}
			}
			return &seriesList{series: out}
		},
	}}
}

// gateSeries returns the llmprober_target_state series of target t on
// instance of job, with the value v0 at 0 s and v1 at 60 s for each of
// waiting, ready and failed in turn.
func gateSeries(job, instance string, v0, v1 [3]float64) []storage.Series {
	var out []storage.Series
	for i, state := range []string{"waiting", "ready", "failed"} {
		ls := labels.FromStrings("__name__", "llmprober_target_state", "job", job, "instance", instance,
			"target", "t", "state", state)
		out = append(out, storage.NewListSeries(ls, []chunks.Sample{floatSample{0, v0[i]}, floatSample{60_000, v1[i]}}))
	}
	return out
}

// gateQuery returns the health dashboard's start-up gate state query with
// job llmprober and target t.
func gateQuery(t *testing.T) string {
	t.Helper()
	for _, q := range committedQueries(t) {
		if q.Dashboard == healthTitle && q.Panel == "Start-up gate state" {
			expanded, err := dashboards.Expand(q.Expr, map[string]string{"job": "llmprober", "target": "t"})
			if err != nil {
				t.Fatal(err)
			}
			return expanded
		}
	}
	t.Fatal("no Start-up gate state query")
	return ""
}

// TestGateStateEncoding evaluates the gate state query over a rolling
// update: instance a waits, then turns ready, while b is ready throughout
// (an aggregate over instances read 1 + 2 = 3, failed, at 0 s); c has
// failed; d of another job has failed too but is not selected. Each
// instance reads its own code: 1 waiting, 2 ready, 3 failed.
func TestGateStateEncoding(t *testing.T) {
	var series []storage.Series
	series = append(series, gateSeries("llmprober", "a", [3]float64{1, 0, 0}, [3]float64{0, 1, 0})...)
	series = append(series, gateSeries("llmprober", "b", [3]float64{0, 1, 0}, [3]float64{0, 1, 0})...)
	series = append(series, gateSeries("llmprober", "c", [3]float64{0, 0, 1}, [3]float64{0, 0, 1})...)
	series = append(series, gateSeries("other", "d", [3]float64{0, 0, 1}, [3]float64{0, 0, 1})...)
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 1000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	expr := gateQuery(t)
	for _, tc := range []struct {
		at   time.Duration
		want string
	}{
		{0, "a=1 b=2 c=3"},
		{time.Minute, "a=2 b=2 c=3"},
	} {
		qry, err := engine.NewInstantQuery(context.Background(), memQueryable(series), nil, expr, time.UnixMilli(0).Add(tc.at))
		if err != nil {
			t.Fatalf("NewInstantQuery: %v", err)
		}
		vec, err := qry.Exec(context.Background()).Vector()
		if err != nil {
			t.Fatalf("at %v: %v", tc.at, err)
		}
		var got []string
		for _, s := range vec {
			if s.Metric.Get("job") != "llmprober" || s.Metric.Get("target") != "t" {
				t.Errorf("at %v: series %v; want job llmprober, target t", tc.at, s.Metric)
			}
			got = append(got, fmt.Sprintf("%s=%g", s.Metric.Get("instance"), s.F))
		}
		slices.Sort(got)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("at %v: gate state %s; want %s", tc.at, g, tc.want)
		}
		qry.Close()
	}
}
