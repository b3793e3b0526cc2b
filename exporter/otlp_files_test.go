package exporter

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// The OTLP exporter's CA, client certificate and key files go through the
// bounded reader: a symbolic link to /dev/zero, a named pipe without a
// writer, a 100 MB file or 1 MiB and a byte without a newline is refused
// at once, naming the variable and what is wrong, allocating and keeping
// less than 1 MiB (the reads refused before reading anything).
func TestOTLPTLSFilesBounded(t *testing.T) {
	dir := t.TempDir()
	zero, fifo, huge, long := filepath.Join(dir, "zero"), filepath.Join(dir, "fifo"), filepath.Join(dir, "huge"), filepath.Join(dir, "long")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if err := os.WriteFile(long, []byte(strings.Repeat("A", 1<<20+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	const bound = 1 << 20
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"CA file: a link to /dev/zero", map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": zero},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: cannot read the CA file: TLS file is not a regular file (it is a device)"},
		{"CA file: a named pipe", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE": fifo},
			"OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE: cannot read the CA file: TLS file is not a regular file (it is a named pipe)"},
		{"CA file: 100 MB", map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": huge},
			"cannot read the CA file: TLS file is too large: larger than 1 MiB, the limit for TLS files"},
		{"CA file: 1 MiB and a byte on one line", map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": long},
			"cannot read the CA file: TLS file is too large: larger than 1 MiB"},
		{"client certificate: a named pipe", map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": fifo, "OTEL_EXPORTER_OTLP_CLIENT_KEY": zero},
			"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE, OTEL_EXPORTER_OTLP_CLIENT_KEY: cannot load the client certificate: TLS file is not a regular file (it is a named pipe)"},
		{"client key: 100 MB", map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": long, "OTEL_EXPORTER_OTLP_CLIENT_KEY": huge},
			"cannot load the client certificate: TLS file is too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := otlpTLSConfig(func(k string) string { return tc.env[k] })
			runtime.GC()
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want %q", err, tc.want)
			}
			if kept, allocated := int64(after.HeapAlloc)-int64(before.HeapAlloc), after.TotalAlloc-before.TotalAlloc; kept > bound || allocated > bound {
				t.Errorf("%d bytes kept, %d allocated; want at most %d each", kept, allocated, bound)
			}
		})
	}
}
