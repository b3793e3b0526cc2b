package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"go.yaml.in/yaml/v3"
)

// retainBound is the most heap a read of a hostile file may keep once it
// returned, in bytes.
const retainBound = 1 << 20

// heapOf runs f and returns the heap it kept after a garbage collection
// and the bytes it allocated in all.
func heapOf(f func()) (kept int64, allocated uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), after.TotalAlloc - before.TotalAlloc
}

// hostile makes, in dir, a symbolic link to /dev/zero, a named pipe, a
// sparse 100 MB file, and files of limit and limit+1 bytes without a
// newline; it returns their paths by name.
func hostile(t *testing.T, dir string, limit int64) map[string]string {
	t.Helper()
	p := map[string]string{}
	for _, name := range []string{"zero", "fifo", "huge", "at limit", "over limit"} {
		p[name] = filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
	}
	if err := os.Symlink("/dev/zero", p["zero"]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p["fifo"], 0o600); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int64{"huge": 100 << 20, "at limit": limit, "over limit": limit + 1} {
		f, err := os.Create(p[name])
		if err != nil {
			t.Fatal(err)
		}
		if name == "huge" {
			err = f.Truncate(size)
		} else {
			_, err = f.WriteString(strings.Repeat("A", int(size)))
		}
		if err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
	}
	return p
}

// Every file the configuration names, and the configuration itself, is
// read through the bounded reader: endless input (/dev/zero through a
// link), a named pipe without a writer, a 100 MB file, and a file one byte
// over its limit without a newline are refused at once, allocating and
// keeping less than 1 MiB; a file at its limit on one line is read and
// refused by its parser, keeping less than 1 MiB once done.
func TestReadersBounded(t *testing.T) {
	readers := []struct {
		name  string
		limit int64
		read  func(path string) error
	}{
		{"configuration", 4 << 20, func(p string) error { _, err := Load(p); return err }},
		{"api_key_file", 64 << 10, func(p string) error { _, err := keyFromFile(p); return err }},
		{"ca_file", 1 << 20, func(p string) error { _, err := loadCAFile(p); return err }},
		{"cert_file", 1 << 20, func(p string) error { _, err := loadKeyPair(p, p); return err }},
	}
	refusals := map[string]string{
		"zero": "not a regular file (it is a device)", "fifo": "not a regular file (it is a named pipe)",
		"huge": "too large", "over limit": "too large",
	}
	for _, r := range readers {
		files := hostile(t, t.TempDir(), r.limit)
		for _, input := range []string{"zero", "fifo", "huge", "over limit", "at limit"} {
			t.Run(r.name+"/"+input, func(t *testing.T) {
				var err error
				kept, allocated := heapOf(func() { err = r.read(files[input]) })
				want, refused := refusals[input]
				switch {
				case refused && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("error %v; want %q", err, want)
				case refused && allocated > retainBound:
					t.Errorf("%d bytes allocated for a refused file; want at most %d", allocated, retainBound)
				case kept > retainBound:
					t.Errorf("%d bytes kept; want at most %d", kept, retainBound)
				}
				t.Logf("kept %d, allocated %d: %v", kept, allocated, err)
			})
		}
	}
}

// laughs is a billion laughs: 9 levels of 10 aliases each to the level
// below, 10^9 strings when expanded, in 1 KiB.
func laughs(prefix string) string {
	var b strings.Builder
	b.WriteString(prefix + "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "%sl%d: &l%d [", prefix, i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

// A billion laughs is refused by go.yaml.in/yaml/v3 itself (its ratio of
// aliases to values) and by Parse: as unknown fields or values of the
// wrong shape, never expanded (TestParseAliasBomb has merges, which are
// expanded up to the walk's count of aliases); each allocating less than 16 MiB and
// keeping less than 1 MiB.
func TestBillionLaughs(t *testing.T) {
	doc := laughs("")
	for _, tc := range []struct {
		name  string
		parse func() error
		want  string
	}{
		{"go.yaml.in/yaml/v3 alone", func() error { var v any; return yaml.Unmarshal([]byte(doc), &v) }, "document contains excessive aliasing"},
		{"Parse: unknown fields, never expanded", func() error { _, err := Parse([]byte(doc), "laughs.yml"); return err },
			"laughs.yml:10: l9: unknown field \"l9\""},
		{"Parse: a list setting aliasing the top level, its first nested list refused", func() error {
			_, err := Parse([]byte(doc+"windows: *l9\ntargets: [{name: a, base_url: http://x/v1, model: m}]\n"), "laughs.yml")
			return err
		}, "laughs.yml:9: windows[9]: must be a duration such as \"30s\""},
		{"Parse: a target's headers", func() error {
			_, err := Parse([]byte("targets:\n  - name: a\n    headers:\n"+laughs("      ")), "laughs.yml")
			return err
		}, "laughs.yml:13: targets[0].headers.l9: must be a single value, not a mapping or a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			kept, allocated := heapOf(func() { err = tc.parse() })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want %q", err, tc.want)
			}
			if kept > retainBound || allocated > 16<<20 {
				t.Errorf("%d bytes kept, %d allocated; want at most %d and %d", kept, allocated, retainBound, 16<<20)
			}
			t.Logf("kept %d, allocated %d", kept, allocated)
		})
	}
}
