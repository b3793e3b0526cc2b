//go:build unix

package localfile

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without waiting for a writer when it
// is a named pipe; reads of a regular file are not affected.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
