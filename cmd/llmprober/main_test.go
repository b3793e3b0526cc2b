package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// binDir holds the binary built for the tests that need a process of
// their own; removed when the tests end.
var binDir string

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if binDir != "" {
			_ = os.RemoveAll(binDir)
		}
		os.Exit(code)
	}))
}
