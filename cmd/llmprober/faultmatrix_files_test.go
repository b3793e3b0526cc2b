package main

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBounded runs the command line args in the test's process and fails
// the test if it has not returned within 10 s (a hang). It returns the exit
// code, everything printed, and the bytes allocated meanwhile.
func runBounded(t *testing.T, args ...string) (code int, out string, allocated uint64) {
	t.Helper()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go func() { done <- Run(context.Background(), args, &stdout, &stderr, nil) }()
	select {
	case err := <-done:
		runtime.ReadMemStats(&after)
		text := stdout.String() + stderr.String()
		if err != nil {
			text += err.Error()
		}
		return exitCode(err), text, after.TotalAlloc - before.TotalAlloc
	case <-time.After(10 * time.Second):
		t.Fatalf("%v did not return within 10s", args)
	}
	return 0, "", 0
}

// hostileFiles makes a named pipe, a 100 MB sparse file and a valid
// minimal configuration in a temporary directory.
func hostileFiles(t *testing.T) (fifo, huge, dir string) {
	t.Helper()
	dir = t.TempDir()
	fifo = filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge = filepath.Join(dir, "huge.yml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	return fifo, huge, dir
}

// TestFaultMatrixFiles gives check (and run, for the web configuration)
// files of every wrong kind in every place a file is read: each is refused
// at once with an error naming the setting and saying what is wrong, exit
// status 2, without hanging on a named pipe or reading a huge file.
func TestFaultMatrixFiles(t *testing.T) {
	fifo, huge, dir := hostileFiles(t)
	target := func(extra string) string {
		return writeFile(t, "c.yml", "targets:\n  - name: a\n    base_url: http://127.0.0.1:1/v1\n    model: m\n"+extra)
	}
	realtime := "    backend: openai_websocket\n    timeout: 1m\n    realtime: {audio_file: %s}\n"
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"config is a device", []string{"check", "--config", "/dev/zero"},
			[]string{"could not read /dev/zero: configuration file is not a regular file (it is a device)"}},
		{"config is a named pipe", []string{"check", "--config", fifo}, []string{"configuration file is not a regular file (it is a named pipe)"}},
		{"config of 100 MB", []string{"check", "--config", huge},
			[]string{"configuration file is too large: larger than 4 MiB, the limit for configuration files"}},
		{"config is a directory", []string{"check", "--config", dir}, []string{"configuration file is not a regular file (it is a directory)"}},
		{"API key file is a named pipe", []string{"check", "--config", target("    auth: {api_key_file: " + fifo + "}\n")},
			[]string{"targets[0].auth.api_key_file: could not read API key: API key file is not a regular file (it is a named pipe)"}},
		{"API key file is a device", []string{"check", "--config", target("    auth: {api_key_file: /dev/zero}\n")},
			[]string{"targets[0].auth.api_key_file: could not read API key: API key file is not a regular file (it is a device)"}},
		{"CA file is a named pipe", []string{"check", "--config", target("    tls: {ca_file: " + fifo + "}\n")},
			[]string{"targets[0].tls.ca_file: could not read CA file: TLS file is not a regular file (it is a named pipe)"}},
		{"CA file is a device", []string{"check", "--config", target("    tls: {ca_file: /dev/zero}\n")},
			[]string{"targets[0].tls.ca_file: could not read CA file: TLS file is not a regular file (it is a device)"}},
		{"client certificate of 100 MB", []string{"check", "--config", target("    tls: {cert_file: " + huge + ", key_file: " + fifo + "}\n")},
			[]string{"targets[0].tls.cert_file: could not load client certificate: cert_file: TLS file is too large"}},
		{"trace is a named pipe", []string{"check", "--config", target("    schedule: {strategy: trace, trace: {file: " + fifo + "}}\n")},
			[]string{"targets[0].schedule.trace.file: could not read trace: trace file is not a regular file (it is a named pipe)"}},
		{"audio is a device", []string{"check", "--config", target(strings.Replace(realtime, "%s", "/dev/zero", 1))},
			[]string{"targets[0].realtime.audio_file: could not read audio: audio file is not a regular file (it is a device)"}},
		{"audio is a named pipe", []string{"check", "--config", target(strings.Replace(realtime, "%s", fifo, 1))},
			[]string{"audio file is not a regular file (it is a named pipe)"}},
		{"web configuration is a device", []string{"run", "--config", target(""), "--web-config-file", "/dev/zero"},
			[]string{"--web-config-file /dev/zero: web configuration file is not a regular file (it is a device)"}},
		{"web configuration is a named pipe", []string{"run", "--config", target(""), "--web-config-file", fifo},
			[]string{"web configuration file is not a regular file (it is a named pipe)"}},
		{"web configuration names a device", []string{"run", "--config", target(""), "--web-config-file",
			writeFile(t, "web.yml", "tls_server_config: {cert_file: /dev/zero, key_file: /dev/zero}\n")},
			[]string{"tls_server_config.", "TLS file is not a regular file (it is a device)"}},
		{"config not UTF-8", []string{"check", "--config", writeFile(t, "latin1.yml", "targets:\n  - name: caf\xe9\n")},
			[]string{"latin1.yml:2: column 14: invalid UTF-8 (byte 0xe9)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, allocated := runBounded(t, tt.args...)
			if code != 2 {
				t.Errorf("exit status %d; want 2:\n%s", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			// Nothing of the file is read: far less than its 4 MiB limit.
			if allocated > 4<<20 {
				t.Errorf("%d bytes allocated; want less than 4 MiB", allocated)
			}
		})
	}
}

// A key pasted into the wrong settings, or into a credential header, is
// never printed back by check, in any encoding.
func TestFaultMatrixCheckOutput(t *testing.T) {
	t.Setenv("HOSTILE_KEY", hostileKey)
	k := `'` + hostileKey + `'`
	cfg := writeFile(t, "c.yml", `log_level: `+k+`
targets:
  - name: a
    base_url: http://127.0.0.1:1/v1
    model: m
    api: `+k+`
    backend: `+k+`
    timeout: `+k+`
    headers: {X-Goog-Api-Key: `+k+`, X-Team: `+k+`}
    auth: {api_key_env: `+k+`}
    tls: {ca_file: `+k+`}
    schedule: {strategy: `+k+`}
    workload: {max_tokens_fields: [`+k+`]}
  - name: b
    base_url: http://127.0.0.1:1/v1
    model: m
    auth: {api_key_file: `+k+`}
    `+k+`: 1
`)
	code, out, _ := runBounded(t, "check", "--config", cfg)
	if code != 2 {
		t.Fatalf("exit status %d:\n%s", code, out)
	}
	if found := leaks(out, hostileKey); len(found) > 0 {
		t.Errorf("check prints the key as %v:\n%s", found, out)
	}
	for _, want := range []string{
		"targets[0].headers.X-Goog-Api-Key: looks like a credential header",
		"name the header in auth.header and give the key with auth.api_key_env or auth.api_key_file",
		"targets[0].api: unknown api (35 characters, not shown)",
		"targets[1].auth.api_key_file: could not read API key: could not open API key file: no such file or directory",
		"targets[1]: unknown field (35 characters, not shown)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
