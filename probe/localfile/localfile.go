// Package localfile reads the files llmprober is given — its configuration,
// the web configuration, TLS material, API key files, trace files, WAV
// audio and the bench reports compare reads — with a type check and a
// size cap per kind of file, so that a wrong name (/dev/zero, a named
// pipe, a directory, a huge file) is a clear error, never a hang or an
// exhausted memory.
//
// Only regular files are read (a symbolic link to one is followed). A
// file is opened without blocking, so that a named pipe with no writer is
// refused at once instead of waiting for one. Errors say what is wrong
// without naming the file: the caller names the setting or the file as it
// sees fit, so that a value pasted into the wrong setting (an API key, say)
// is not printed back.
package localfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Kind is a kind of file and the largest size read of it.
type Kind struct {
	// Name names the kind in errors, such as "configuration file".
	Name string
	// MaxBytes is the largest size read, in bytes.
	MaxBytes int64
}

// The kinds of files llmprober reads.
var (
	// Config is the configuration file: 4 MiB.
	Config = Kind{"configuration file", 4 << 20}
	// WebConfig is the exporter-toolkit web configuration file: 1 MiB.
	WebConfig = Kind{"web configuration file", 1 << 20}
	// TLS is a PEM file of certificates or a key (CA bundle, client or
	// server certificate, key): 1 MiB.
	TLS = Kind{"TLS file", 1 << 20}
	// APIKey is an API key file: 64 KiB.
	APIKey = Kind{"API key file", 64 << 10}
	// Trace is a trace file: 1 GiB.
	Trace = Kind{"trace file", 1 << 30}
	// Audio is a WAV audio file: 10 minutes of 16 kHz PCM16 mono audio
	// (19 200 000 bytes) and 1 MiB of headers.
	Audio = Kind{"audio file", 10*60*16000*2 + 1<<20}
	// BenchReport is a JSON report of llmprober bench read by compare:
	// 32 GiB, above one benchmark of the largest run (10 000 000 requests
	// at about 1.8 KB of report each, most of it their records, which
	// compare skips as it reads).
	BenchReport = Kind{"bench report", 32 << 30}
)

// Kinds lists every kind, in the order the limits table of docs/security.md shows them.
var Kinds = []Kind{Config, WebConfig, TLS, APIKey, Trace, Audio, BenchReport}

// ErrNotRegular is wrapped by the error for a file that is not a regular
// file (a named pipe, a device, a directory, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file larger than its kind's
// MaxBytes.
var ErrTooLarge = errors.New("too large")

// Open opens the regular file at path for reading; reads past k.MaxBytes
// fail with an error wrapping ErrTooLarge. Close the file when done.
func Open(path string, k Kind) (io.ReadCloser, error) {
	f, err := openNoBlock(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("could not open %s: %w", k.Name, err)
	}
	if err := check(f, k); err != nil {
		_ = f.Close()
		return nil, err
	}
	return &limited{f: f, k: k, left: k.MaxBytes}, nil
}

// ReadFile returns the contents of the regular file at path, of at most
// k.MaxBytes.
func ReadFile(path string, k Kind) ([]byte, error) {
	r, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	return io.ReadAll(r)
}

// check refuses an open file that is not regular or is too large.
func check(f *os.File, k Kind) error {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return fmt.Errorf("could not read %s: %w", k.Name, err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is %w (it is %s)", k.Name, ErrNotRegular, what(fi.Mode()))
	case fi.Size() > k.MaxBytes:
		return tooLarge(k)
	}
	return nil
}

// tooLarge is the error for a file of kind k over its limit.
func tooLarge(k Kind) error {
	return fmt.Errorf("%s is %w: larger than %s, the limit for %ss", k.Name, ErrTooLarge, Size(k.MaxBytes), k.Name)
}

// what names the type of a file that is not regular.
func what(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDir != 0:
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// Size formats n bytes as KiB, MiB or GiB when it is a whole number of
// them, else as bytes.
func Size(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// limited reads an open file up to its kind's limit.
type limited struct {
	f    *os.File
	k    Kind
	left int64
}

// Read reads from the file; one byte past the limit is an error.
func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, tooLarge(l.k)
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n - 1, tooLarge(l.k)
	}
	return n, err
}

// Close closes the file.
func (l *limited) Close() error { return l.f.Close() }
