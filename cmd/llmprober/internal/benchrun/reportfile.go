package benchrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// reportMode is the permission of a new report file, as os.Create gives
// under the usual umask 022; a report that replaces a file keeps that
// file's permission.
const reportMode fs.FileMode = 0o644

// ReportFile is a report (JSON, CSV, HTML, a CPU profile) written to a
// temporary file beside its path and renamed onto the path once complete:
// the path holds its previous content, or nothing, until Commit, and the
// whole new report after it, never an empty or partial one, whenever the
// process is stopped. A process killed before Commit or Abort leaves its
// temporary file, named ".NAME.*.tmp", in the report's directory.
type ReportFile struct {
	path string
	mode fs.FileMode
	tmp  *os.File
}

// CreateReport creates the temporary file of a report at path. A symbolic
// link at path is followed: the report replaces the file it points to. A
// path that exists and is not a regular file (a directory, a device, a
// named pipe) is refused, so is one whose directory cannot be written.
func CreateReport(path string) (*ReportFile, error) {
	target, mode, err := reportTarget(path)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("could not create a temporary file beside it: %w", pathCause(err))
	}
	return &ReportFile{path: target, mode: mode, tmp: tmp}, nil
}

// reportTarget resolves path to the file a report replaces and the
// permission the report gets.
func reportTarget(path string) (string, fs.FileMode, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, reportMode, nil
	case err != nil:
		return "", 0, fmt.Errorf("could not stat it: %w", pathCause(err))
	case !fi.Mode().IsRegular():
		return "", 0, fmt.Errorf("it exists and is not a regular file (mode %s)", fi.Mode().Type())
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", 0, fmt.Errorf("could not resolve it: %w", pathCause(err))
	}
	return target, fi.Mode().Perm(), nil
}

// pathCause is the cause of a *fs.PathError without the path, which the
// caller names.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Write writes to the temporary file.
func (r *ReportFile) Write(p []byte) (int, error) { return r.tmp.Write(p) }

// Commit flushes the temporary file to disk, closes it, renames it onto
// the report's path and flushes the directory; on any error the temporary
// file is removed and the path left as it was.
func (r *ReportFile) Commit() error {
	err := r.tmp.Sync()
	err = errors.Join(err, r.tmp.Close())
	if err == nil {
		err = os.Chmod(r.tmp.Name(), r.mode)
	}
	if err == nil {
		err = os.Rename(r.tmp.Name(), r.path)
	}
	if err != nil {
		_ = os.Remove(r.tmp.Name())
		return fmt.Errorf("could not write %s: %w", r.path, err)
	}
	syncDir(filepath.Dir(r.path))
	return nil
}

// syncDir flushes a directory's entries (a rename in it) to disk, where
// the system allows it; a failure leaves the rename done, only not yet
// durable across a power loss.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Abort closes and removes the temporary file, leaving the report's path
// as it was. It does nothing after Commit.
func (r *ReportFile) Abort() {
	if err := r.tmp.Close(); errors.Is(err, os.ErrClosed) {
		return
	}
	_ = os.Remove(r.tmp.Name())
}
