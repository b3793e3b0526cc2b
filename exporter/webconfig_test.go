package exporter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/llmprober/llmprober/probe/localfile"
)

func TestCheckWebConfig(t *testing.T) {
	dir := t.TempDir()
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
	tests := []struct {
		name, path string
		is         error
		want       string
	}{
		{"valid", write("ok.yml", "http_server_config:\n  http2: false\n"), nil, ""},
		{"a device", "/dev/zero", localfile.ErrNotRegular, "web configuration file is not a regular file (it is a device)"},
		{"a named pipe", fifo, localfile.ErrNotRegular, "web configuration file is not a regular file (it is a named pipe)"},
		{"too large", write("big.yml", "#"+strings.Repeat("x", 1<<20)+"\n"), localfile.ErrTooLarge, "larger than 1 MiB"},
		{"certificate is a device", write("dev.yml", "tls_server_config:\n  cert_file: /dev/zero\n  key_file: key.pem\n"),
			localfile.ErrNotRegular, "tls_server_config.cert_file: TLS file is not a regular file (it is a device)"},
		{"relative key file is a named pipe", write("pipe.yml", "tls_server_config:\n  cert_file: ok.yml\n  key_file: fifo\n"),
			localfile.ErrNotRegular, "tls_server_config.key_file: TLS file is not a regular file (it is a named pipe)"},
		{"the toolkit's own check", write("bad.yml", "nonsense: 1\n"), nil, "field nonsense not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckWebConfig(tt.path)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckWebConfig: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v; want one containing %q", err, tt.want)
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
		})
	}
}
