package main

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func TestLogObserverStateChangesAndRateLimit(t *testing.T) {
	var buf syncBuffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLogObserver(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
	l.State("a", probe.StateWaiting, 0)
	l.State("a", probe.StateWaiting, time.Second) // no change: no line
	l.readinessFailed("a", errors.New("connection refused"))
	l.State("a", probe.StateFailed, 10*time.Minute)
	l.State("a", probe.StateReady, 11*time.Minute)
	rec := &probe.Record{Target: "a", Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx, HTTPStatus: 500}
	l.Finished(rec) // logged
	now = now.Add(30 * time.Second)
	l.Finished(rec) // suppressed
	l.Finished(rec) // suppressed
	l.Finished(&probe.Record{Target: "a", Outcome: probe.Successful})
	now = now.Add(31 * time.Second) // 61 s after the first line
	l.Finished(rec)                 // logged, reporting 2 suppressed
	out := buf.String()
	for _, want := range []string{
		`msg="waiting for target to become ready" target=a`,
		`last_error="connection refused"`,
		`msg="target ready; probing" target=a waited=11m0s`,
		`similar_errors_not_logged=0`,
		`similar_errors_not_logged=2`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 5 {
		t.Errorf("%d log lines, want 5 (waiting, failed, ready, two errors):\n%s", n, out)
	}
}
