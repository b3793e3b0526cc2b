//go:build unix

package benchrun

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReportFile: until Commit the path keeps its previous content byte
// for byte and Abort leaves no file behind; Commit replaces it whole,
// keeping an existing file's permission (0644 for a new one), through a
// symbolic link onto the file it points to; a path that exists and is not
// a regular file is refused before anything is written.
func TestReportFile(t *testing.T) {
	const old, report = "previous report\n", `{"schema": "new"}`
	tests := []struct {
		name     string
		prepare  func(t *testing.T, dir string) (path, check string)
		commit   bool
		want     string
		wantMode fs.FileMode
	}{
		{"new file, committed", func(_ *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "r.json")
			return p, p
		}, true, report, 0o644},
		{"new file, aborted", func(_ *testing.T, dir string) (string, string) {
			p := filepath.Join(dir, "r.json")
			return p, p
		}, false, "", 0},
		{"existing 0600 file, committed", func(t *testing.T, dir string) (string, string) {
			return writeOld(t, dir, "r.json", old, 0o600), filepath.Join(dir, "r.json")
		}, true, report, 0o600},
		{"existing file, aborted", func(t *testing.T, dir string) (string, string) {
			return writeOld(t, dir, "r.json", old, 0o644), filepath.Join(dir, "r.json")
		}, false, old, 0o644},
		{"symbolic link, committed onto its target", func(t *testing.T, dir string) (string, string) {
			target := writeOld(t, dir, "target.json", old, 0o640)
			link := filepath.Join(dir, "link.json")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link, target
		}, true, report, 0o640},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, check := tc.prepare(t, dir)
			f, err := CreateReport(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write([]byte(report)); err != nil {
				t.Fatal(err)
			}
			if tc.commit {
				err = f.Commit()
			}
			f.Abort()
			if err != nil {
				t.Fatal(err)
			}
			checkFile(t, check, tc.want, tc.wantMode)
			checkNoTemporary(t, dir)
		})
	}
}

// TestReportFileRefused: a directory or a named pipe at the path, or a
// directory that does not exist, is refused, and nothing is created.
func TestReportFileRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, "not a regular file (mode d"},
		{fifo, "not a regular file (mode p"},
		{filepath.Join(dir, "no", "r.json"), "could not create a temporary file beside it: no such file or directory"},
	} {
		_, err := CreateReport(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want an error with %q", tc.path, err, tc.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only the named pipe", len(entries))
	}
}

// writeOld writes a previous report.
func writeOld(t *testing.T, dir, name, content string, mode fs.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkFile checks path's content and permission; want "" is no file.
func checkFile(t *testing.T, path, want string, mode fs.FileMode) {
	t.Helper()
	b, err := os.ReadFile(path)
	if want == "" {
		if !os.IsNotExist(err) {
			t.Errorf("%s exists (%v), want none", path, err)
		}
		return
	}
	if err != nil || string(b) != want {
		t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
		t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, mode)
	}
}

// checkNoTemporary fails when a temporary report file is left in dir.
func checkNoTemporary(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
