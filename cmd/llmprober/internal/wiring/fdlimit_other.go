//go:build !unix

package wiring

// OpenFileLimit returns 0: the limit on open files is not known here.
func OpenFileLimit() uint64 { return 0 }
