//go:build unix

package wiring

import "syscall"

// OpenFileLimit returns the process's limit on open file descriptors
// (RLIMIT_NOFILE, which the Go runtime raises to its hard limit at start),
// or 0 when it cannot be read.
func OpenFileLimit() uint64 {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return 0
	}
	return l.Cur
}
