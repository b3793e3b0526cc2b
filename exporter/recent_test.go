package exporter

import (
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func TestRing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		size   int
		pushes int
		want   []uint64 // Seq, newest first
	}{
		{"empty", 3, 0, []uint64{}},
		{"partly filled", 3, 2, []uint64{1, 0}},
		{"exactly full", 3, 3, []uint64{2, 1, 0}},
		{"wrapped keeps the last 3 of 7", 3, 7, []uint64{6, 5, 4}},
		{"size below 1 keeps one", 0, 2, []uint64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRing(tc.size)
			for i := range tc.pushes {
				r.push(ProbeSummary{Seq: uint64(i)})
			}
			got := []uint64{}
			for _, p := range r.newestFirst() {
				got = append(got, p.Seq)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v; want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v; want %v", got, tc.want)
				}
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, tc := range []struct {
		name                            string
		rec                             *probe.Record
		latency, ttft, ttfot, itl, tpot *time.Duration
	}{
		// alphaOK: latency 340−10 = 330 ms, TTFT 250, TTFOT 270, ITL 20, TPOT 77.5.
		{"successful stream", alphaOK(), ptr(ms(330)), ptr(ms(250)), ptr(ms(270)), ptr(ms(20)), ptr(ms(77.5))},
		// alphaErr finished (errored) 60 ms after its start: latency is
		// defined; nothing was streamed.
		{"errored: only latency defined", alphaErr(), ptr(ms(60)), nil, nil, nil, nil},
		// betaOK: latency 500 ms, TPOT 500/16 = 31.25 ms, nothing streamed.
		{"non-streamed", betaOK(), ptr(ms(500)), nil, nil, nil, ptr(ms(31.25))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summarize(tc.rec)
			for _, c := range []struct {
				what      string
				got, want *time.Duration
			}{{"latency", s.Latency, tc.latency}, {"TTFT", s.TTFT, tc.ttft}, {"TTFOT", s.TTFOT, tc.ttfot},
				{"ITL", s.ITL, tc.itl}, {"TPOT", s.TPOT, tc.tpot}} {
				if (c.got == nil) != (c.want == nil) || (c.got != nil && *c.got != *c.want) {
					t.Errorf("%s = %v; want %v", c.what, deref(c.got), deref(c.want))
				}
			}
			if !s.Time.Equal(tc.rec.End) {
				t.Errorf("Time = %v; want End %v", s.Time, tc.rec.End)
			}
		})
	}
}

func ptr(d time.Duration) *time.Duration { return &d }

func deref(d *time.Duration) any {
	if d == nil {
		return "absent"
	}
	return *d
}

func TestShorten(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		n        int
		want     string
	}{
		{"short kept", "abc", 5, "abc"},
		{"exact kept", "abcde", 5, "abcde"},
		{"cut with ellipsis", "abcdef", 5, "abcd…"},
		{"runes not bytes", "ééééé€", 5, "éééé…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := shorten(tc.in, tc.n); got != tc.want {
				t.Errorf("shorten(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
	if got := summarize(&probe.Record{Error: strings.Repeat("x", 500)}).Error; len([]rune(got)) != maxErrorText {
		t.Errorf("summary error has %d runes; want %d", len([]rune(got)), maxErrorText)
	}
}
