package wiring

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/llmprober/llmprober/config"
)

// FileLimit is the process's limit on open file descriptors
// (RLIMIT_NOFILE); 0 is unknown.
type FileLimit struct {
	// Soft is the limit in force; Hard is what it may be raised to.
	Soft, Hard uint64
}

// ErrFileLimit is wrapped by the error of a limit on open files below
// what a configuration needs at least (FileMinimum).
var ErrFileLimit = errors.New("too few open files allowed")

// FileNeed is the number of file descriptors targets need with every
// target at its max_concurrency: the probes' (two per concurrent request
// and two for the readiness check, per target), the HTTP server's smallest
// connection cap (8) and 64 for the process itself.
func FileNeed(targets []config.Target) uint64 {
	return probeDescriptors(targets) + minServerConnections + fdReserve
}

// FileMinimum is the number of file descriptors targets need at least:
// one connection per target, the HTTP server's smallest connection cap (8)
// and 64 for the process itself. Below it the probes can take every
// descriptor and /metrics never answers.
func FileMinimum(targets []config.Target) uint64 {
	return uint64(len(targets)) + minServerConnections + fdReserve
}

// EnsureFileLimit makes the limit on open files fit targets: below
// FileNeed it raises the soft limit to the hard one (logged at INFO);
// still below FileNeed it logs a WARN naming the limit and the need, and
// below FileMinimum it returns an error wrapping ErrFileLimit naming both.
// An unknown limit is left alone.
func EnsureFileLimit(targets []config.Target, logger *slog.Logger) error {
	return ensureFileLimit(targets, logger, openFileLimits, setOpenFileLimit)
}

// ensureFileLimit is EnsureFileLimit reading the limit with get and
// setting the soft one with set.
func ensureFileLimit(targets []config.Target, logger *slog.Logger, get func() FileLimit, set func(uint64) error) error {
	l, need := get(), FileNeed(targets)
	if l.Soft == 0 || l.Soft >= need {
		return nil
	}
	if l.Hard > l.Soft {
		if err := set(l.Hard); err == nil {
			logger.Info("raised the limit on open files to its hard limit", "from", l.Soft, "to", l.Hard, "need", need)
			l.Soft = l.Hard
		}
	}
	if least := FileMinimum(targets); l.Soft < least {
		return fmt.Errorf("%w: the limit on open files is %d (hard limit %d), below the %d that %d targets need at least "+
			"(one connection each, %d for the HTTP server, %d for the process) and the %d they need at their max_concurrency; "+
			"raise it (ulimit -n, systemd's LimitNOFILE, the container's nofile ulimit) or probe fewer targets",
			ErrFileLimit, l.Soft, l.Hard, least, len(targets), minServerConnections, fdReserve, need)
	}
	if l.Soft < need {
		logger.Warn("the limit on open files is below what the targets need at their max_concurrency; "+
			"requests beyond it fail as incomplete with error type prober", "limit", l.Soft, "hard_limit", l.Hard, "need", need)
	}
	return nil
}
