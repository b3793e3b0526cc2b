package localfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := Kind{Name: "test file", MaxBytes: 8}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(write("target", "12345678"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		want       string
		is         error
		msg        string // the error text, exactly
	}{
		{"at the limit", write("ok", "12345678"), "12345678", nil, ""},
		{"a link to a regular file", filepath.Join(dir, "link"), "12345678", nil, ""},
		{"one byte over", write("big", "123456789"), "", ErrTooLarge,
			"test file is too large: larger than 8 bytes, the limit for test files"},
		{"a named pipe without a writer is refused at once", fifo, "", ErrNotRegular,
			"test file is not a regular file (it is a named pipe)"},
		{"a device", "/dev/zero", "", ErrNotRegular, "test file is not a regular file (it is a device)"},
		{"a directory", dir, "", ErrNotRegular, "test file is not a regular file (it is a directory)"},
		{"missing: the name is not shown", filepath.Join(dir, "sk-pasted-key"), "", fs.ErrNotExist,
			"could not open test file: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadFile(tt.path, small)
			if tt.is == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("ReadFile = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.is) || err.Error() != tt.msg {
				t.Errorf("error %q (is %v: %v); want %q", err, tt.is, errors.Is(err, tt.is), tt.msg)
			}
		})
	}
}

// A file whose size the system does not report (/proc) is still cut at
// the limit while it is read.
func TestReadFileLimitWhileReading(t *testing.T) {
	const p = "/proc/self/status"
	if _, err := os.Stat(p); err != nil {
		t.Skip("no /proc")
	}
	_, err := ReadFile(p, Kind{Name: "status", MaxBytes: 16})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 16 bytes") {
		t.Errorf("error %v; want one wrapping ErrTooLarge", err)
	}
	if b, err := ReadFile(p, Kind{Name: "status", MaxBytes: 1 << 20}); err != nil || !strings.Contains(string(b), "VmRSS") {
		t.Errorf("under the limit: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		4 << 20: "4 MiB", 64 << 10: "64 KiB", 1 << 30: "1 GiB", 8: "8 bytes", Audio.MaxBytes: "19774 KiB",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
