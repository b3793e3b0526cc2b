package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssetsLoadedOnceByCheck checks that a run uses the trace Check
// decoded, not a second reading: after Check the file is removed and
// Assets still returns its 3 rows, while a target Check has not seen
// reports the missing file at its setting.
func TestAssetsLoadedOnceByCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.jsonl")
	rows := `{"timestamp": 0, "prompt_tokens": 10, "output_tokens": 5}` + "\n" +
		`{"timestamp": 0.5, "prompt_tokens": 20, "output_tokens": 6}` + "\n" +
		`{"timestamp": 1, "prompt_tokens": 30, "output_tokens": 7}` + "\n"
	if err := os.WriteFile(file, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	yml := "targets:\n  - name: a\n    base_url: http://127.0.0.1:1/v1\n    model: m\n" +
		"    schedule:\n      strategy: trace\n      trace:\n        file: t.jsonl\n"
	path := filepath.Join(dir, "c.yml")
	if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	unchecked := c.Targets[0]
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	a, err := c.Targets[0].Assets()
	if err != nil || a.Trace == nil || a.Trace.Timed() != 3 || a.Audio != nil {
		t.Fatalf("Assets() after Check = %+v, %v; want the 3 rows Check read and no audio", a, err)
	}
	_, err = unchecked.Assets()
	if want := "schedule.trace.file: could not read trace: could not open trace file: "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Assets() without Check = %v; want prefix %q", err, want)
	}
}
