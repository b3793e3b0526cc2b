//go:build !unix

package wiring

import "errors"

// OpenFileLimit returns 0: the limit on open files is not known here.
func OpenFileLimit() uint64 { return 0 }

// openFileLimits returns zero: the limit is not known here.
func openFileLimits() FileLimit { return FileLimit{} }

// setOpenFileLimit cannot set the limit here.
func setOpenFileLimit(uint64) error { return errors.New("no limit on open files to set") }
