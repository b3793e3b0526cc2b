//go:build unix

package wiring

import "syscall"

// OpenFileLimit returns the process's limit on open file descriptors
// (RLIMIT_NOFILE, which the Go runtime raises to its hard limit at start),
// or 0 when it cannot be read.
func OpenFileLimit() uint64 { return openFileLimits().Soft }

// openFileLimits returns the soft and hard RLIMIT_NOFILE; zero when they
// cannot be read.
func openFileLimits() FileLimit {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return FileLimit{}
	}
	return FileLimit{Soft: l.Cur, Hard: l.Max}
}

// setOpenFileLimit sets the soft RLIMIT_NOFILE to soft, the hard one
// unchanged.
func setOpenFileLimit(soft uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	l.Cur = soft
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}
