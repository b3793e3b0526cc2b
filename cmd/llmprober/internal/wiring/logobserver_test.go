package wiring

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/llmprober/llmprober/probe"
)

func TestLogObserverStateChangesAndRateLimit(t *testing.T) {
	var buf syncBuffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLogObserver(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
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
	if n := strings.Count(out, "\n"); n != 6 {
		t.Errorf("%d log lines, want 6 (waiting, not ready yet, failed, ready, two errors):\n%s", n, out)
	}
}

func TestLogObserverReadinessFailures(t *testing.T) {
	var buf syncBuffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLogObserver(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
	refused, unauthorized := errors.New("connection refused"), errors.New("HTTP 401")
	l.readinessFailed("a", refused) // logged: first
	now = now.Add(2 * time.Second)
	l.readinessFailed("a", refused)      // same text within a minute: not logged
	l.readinessFailed("b", refused)      // another target: logged
	l.readinessFailed("a", unauthorized) // new text: logged
	now = now.Add(59 * time.Second)
	l.readinessFailed("a", unauthorized) // 59 s after: not logged
	now = now.Add(time.Second)
	l.readinessFailed("a", unauthorized) // 60 s after: logged
	want := []string{
		`msg="target not ready yet" target=a error="connection refused"`,
		`msg="target not ready yet" target=b error="connection refused"`,
		`msg="target not ready yet" target=a error="HTTP 401"`,
		`msg="target not ready yet" target=a error="HTTP 401"`,
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d log lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %s, want it to contain %s", i, lines[i], w)
		}
	}
}

// TestLogObserverDrops: the first drop for a full queue is logged at once,
// the next ones at most once a minute per target with the drops since the
// last line; drops at shutdown are not logged.
func TestLogObserverDrops(t *testing.T) {
	var buf syncBuffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLogObserver(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
	l.Dropped("a", probe.DropQueueFull) // logged: 1
	for range 127 {
		now = now.Add(100 * time.Millisecond)
		l.Dropped("a", probe.DropQueueFull) // held back
	}
	l.Dropped("b", probe.DropQueueFull) // another target: logged: 1
	l.Dropped("a", probe.DropShutdown)  // not logged
	now = now.Add(time.Minute)
	l.Dropped("a", probe.DropQueueFull) // logged: 127 held + this one
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{"target=a reason=queue_full dropped_since_last_log=1", "target=b reason=queue_full dropped_since_last_log=1",
		"target=a reason=queue_full dropped_since_last_log=128"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) || !strings.Contains(lines[i], "level=WARN") {
			t.Errorf("line %d = %s, want %s", i, lines[i], w)
		}
	}
}

// TestLogObserverErrorCodeAndUsage: the error line carries the server's
// error code and the usage flags when the record has them, and neither
// when it has not; a number code is written as it is, a string code in
// JSON quotes, another value as its JSON text, so 400 and "400" differ.
func TestLogObserverErrorCodeAndUsage(t *testing.T) {
	var buf syncBuffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLogObserver(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
	l.Finished(&probe.Record{Target: "a", Outcome: probe.Errored, ErrorType: probe.ErrorStream, HTTPStatus: 200,
		ErrorCode: probe.ErrorCode{Text: "400", Kind: probe.CodeNumber}, Error: "stream error: too long", UsageInconsistent: true, TokensClamped: true})
	l.Finished(&probe.Record{Target: "b", Outcome: probe.Errored, ErrorType: probe.ErrorStream, HTTPStatus: 200, Error: "x"})
	l.Finished(&probe.Record{Target: "c", Outcome: probe.Errored, ErrorType: probe.ErrorStream, HTTPStatus: 200,
		ErrorCode: probe.ErrorCode{Text: "400", Kind: probe.CodeString}, Error: "y"})
	l.Finished(&probe.Record{Target: "d", Outcome: probe.Errored, ErrorType: probe.ErrorStream, HTTPStatus: 200,
		ErrorCode: probe.ErrorCode{Text: `{"x":1}`, Kind: probe.CodeOther}, Error: "z"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{
		`target=a error_type=stream_error http_status=200 error_code=400 error="stream error: too long" usage_inconsistent=true tokens_clamped=true similar_errors_not_logged=0`,
		"", // checked below
		`target=c error_type=stream_error http_status=200 error_code="\"400\"" error=y similar_errors_not_logged=0`,
		`target=d error_type=stream_error http_status=200 error_code="{\"x\":1}" error=z similar_errors_not_logged=0`,
	} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %q lacks %q", lines[i], want)
		}
	}
	if strings.Contains(lines[1], "error_code") || strings.Contains(lines[1], "usage_inconsistent") {
		t.Errorf("line %q has a code or a flag it should not", lines[1])
	}
}

// TestLogObserverForget: 1000 targets that came and went leave nothing
// behind once forgotten, and a forgotten target's next error is logged at
// once, without a held count, where a remembered one's is held back.
func TestLogObserverForget(t *testing.T) {
	var buf syncBuffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLogObserver(slog.New(slog.NewTextHandler(&buf, nil)), func() time.Time { return now })
	for i := range 1000 {
		name := fmt.Sprintf("t%d", i)
		l.State(name, probe.StateWaiting, 0)
		l.readinessFailed(name, errors.New("connection refused"))
		l.Dropped(name, probe.DropQueueFull)
		l.Finished(&probe.Record{Target: name, Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx})
		l.Forget(name)
	}
	if n := len(l.state) + len(l.gateErr) + len(l.gateLogged); n != 0 {
		t.Errorf("%d entries remain of forgotten targets, want 0", n)
	}
	rec := func(target string) *probe.Record {
		return &probe.Record{Target: target, Outcome: probe.Errored, ErrorType: probe.ErrorHTTP5xx}
	}
	for _, c := range []struct {
		forget bool
		want   int // lines of the second error, 10 s after the first
	}{{false, 0}, {true, 1}} {
		target := fmt.Sprintf("forget-%v", c.forget)
		l.Finished(rec(target))
		if c.forget {
			l.Forget(target)
		}
		before := strings.Count(buf.String(), "\n")
		now = now.Add(10 * time.Second)
		l.Finished(rec(target))
		if got := strings.Count(buf.String(), "\n") - before; got != c.want {
			t.Errorf("forget %v: the second error wrote %d lines, want %d:\n%s", c.forget, got, c.want, buf.String())
		}
	}
}
