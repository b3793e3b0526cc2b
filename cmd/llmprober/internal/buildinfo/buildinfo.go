// Package buildinfo holds the version and source revision of the running
// llmprober binary, which the command line sets from its link-time
// variables.
package buildinfo

import (
	"runtime/debug"

	"github.com/llmprober/llmprober/exporter"
)

// version and revision are set once by Set, before anything reads them.
var version, revision string

// Set records the version and revision given at link time (either may be
// empty).
func Set(v, r string) { version, revision = v, r }

// Version returns the version set at link time or recorded by the Go
// toolchain, else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Revision returns the revision set at link time, else the embedded VCS
// revision, else "unknown".
func Revision() string {
	if revision != "" {
		return revision
	}
	return exporter.VCSRevision()
}

// LinkRevision is the revision set at link time, empty without one (the
// exporter then reads the embedded VCS revision itself).
func LinkRevision() string { return revision }
