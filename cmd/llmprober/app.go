package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/buildinfo"
	"github.com/llmprober/llmprober/cmd/llmprober/internal/wiring"
)

// version is set at build time with -ldflags "-X main.version=..."; otherwise
// it comes from the module's build information.
var version = ""

// revision is the source revision of llmprober_build_info, set at build time
// with -ldflags "-X main.revision=..." (the Dockerfile's REVISION); empty
// means the binary's embedded VCS revision, or "unknown" without one.
var revision = ""

// errUsage is returned after usage has been printed for a bad command line.
var errUsage = errors.New("usage")

// errHelp is returned after help was printed on request (exit code 0).
var errHelp = errors.New("help requested")

// errInvalid marks a configuration that failed validation (exit code 2).
var errInvalid = wiring.ErrInvalid

// inputError is bad input other than the configuration (exit code 2): a
// file that cannot be read or is not what it should be, a report path that
// cannot be written. Its text is its cause's.
type inputError struct{ err error }

// Error returns the cause's text.
func (e inputError) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e inputError) Unwrap() error { return e.err }

// badInput marks err as bad input (exit code 2).
func badInput(err error) error { return inputError{err} }

const usage = `llmprober probes LLM inference servers with scheduled synthetic requests
and exports TTFT, ITL, latency, token and error metrics to Prometheus and OTLP.

Usage:
  llmprober demo  [--listen-address ADDR] [--log-level LEVEL]
      Start the embedded simulated endpoint on loopback and probe it.
  llmprober run   [--config FILE] [--listen-address ADDR] [--log-level LEVEL] [--web-config-file FILE]
                  [--config.auto-reload-interval D] [--web.enable-lifecycle] [--web.allowed-hosts NAMES]
                  [--shards N --shard I]
      Probe the targets of FILE, or the single target set by LLMPROBER_TARGET_URL;
      with --shards, only those whose name hashes to shard I (0 to N-1).
  llmprober check [--config FILE] [--shards N --shard I]
      Validate the configuration, list every problem, exit non-zero on any;
      print the series it exports at most, and refuse one above series_limit.
  llmprober sim   [--listen-address ADDR] [--ttft D] [--itl D] [--output-tokens N] [--fault-rate P] [--seed N]
      Serve the simulated OpenAI-compatible endpoint (loopback by default).
  llmprober bench --target-url URL --model M --rate R --duration D [--stream] [--json] ...
      Send requests at a constant rate for a bounded time, then report how
      well the schedule was kept (achieved rate, dispatch delay, CPU, memory).
  llmprober bench --config FILE [--target NAME] [--profile single|sweep|goodput] (--max-duration D | --max-requests N)
                  [--max-errors N] [--max-error-rate R] [--warmup D|N|P%] [--cooldown D|N|P%] [--confidence C|null]
                  [--output FILE] [--csv FILE] [--gate [--gate-inconclusive pass|fail]] [--quiet]
                  [--sweep-rates N] [--goodput-steps N] [--objective NAME] [--html FILE]
      Benchmark one configured target (sweep: synchronous, throughput, constant rates
      between; goodput: the highest load whose attainment interval clears the target):
      latency table with intervals, tokens, throughput, SLO attainment and verdict per
      objective set; JSON, CSV and HTML (charts, one offline file) reports; --gate exits 0 when every set is met, 1 when
      one is breached, 3 otherwise.
  llmprober compare [--fail-on-regression] BASE.json NEW.json
      Compare two bench reports figure by figure; a difference counts only
      when the intervals do not overlap; when asked, exit 1 on a regression,
      3 when a figure of BASE cannot be compared (absent in NEW, no window,
      no successful request).
  llmprober rules [--config FILE | --default] [--format prometheus|operator] [--min-requests N]
                  [--max-dispatch-delay D] [--min-coverage F] [--job NAME] [--max-report-age D]
      Print Prometheus recording and burn-rate alert rules for the objective sets.
  llmprober version
      Print the version and the source revision.

Environment:
  LLMPROBER_CONFIG, LLMPROBER_LISTEN_ADDRESS, LLMPROBER_LOG_LEVEL
      Global settings (a flag wins over its variable, a variable over the file).
  LLMPROBER_TARGET_URL, LLMPROBER_MODEL, LLMPROBER_RATE, ... (see README)
      A single target without a config file. Any other LLMPROBER_* variable is
      an error, unless a target's auth.api_key_env names it.
  LLMPROBER_SHARD, LLMPROBER_SHARDS
      Defaults of --shard and --shards.
  OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
      service.name (default llmprober) and service.instance.id (default a
      random UUID per process): the replica identity on /metrics and OTLP.
  OTEL_METRICS_EXPORTER=otlp, OTEL_EXPORTER_OTLP_*
      Also push metrics with OTLP (http/protobuf by default, or grpc).
  GOGC, GOMEMLIMIT, GOMAXPROCS
      The Go runtime's settings. Without GOGC, run and demo collect garbage
      at GOGC=50 (the heap is mostly the windows' bounded records).

Endpoints: / (status page), /targets/NAME, /metrics, /-/healthy, /-/ready,
/api/v1/targets, /config (the running configuration, secrets redacted),
POST /-/reload (with --web.enable-lifecycle). SIGHUP and POST /-/reload
reload the configuration of run (see docs/configuration.md). Every route but /metrics,
/-/healthy and /-/ready answers only a Host that is an IP address,
localhost, this machine's or the listen address's name, or one of
--web.allowed-hosts.
`

// Run is the whole command line: environ is the environment (name → value); it parses args, runs the subcommand until it
// ends or ctx is cancelled, and returns its error.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, environ map[string]string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "run":
		return runCmd(ctx, rest, stdout, stderr, environ)
	case "check":
		return checkCmd(rest, stdout, stderr, environ)
	case "demo":
		return demoCmd(ctx, rest, stdout, stderr, environ)
	case "sim":
		return simCmd(ctx, rest, stdout, stderr)
	case "bench":
		return benchCmd(ctx, rest, stdout, stderr)
	case "rules":
		return rulesCmd(rest, stdout, stderr, environ)
	case "compare":
		return compareCmd(rest, stdout, stderr)
	case "version", "--version", "-version":
		return versionCmd(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		return helpCmd(ctx, rest, stdout, stderr, environ)
	}
	fmt.Fprintf(stderr, "unknown command %q\n\n%s", cmd, usage)
	return errUsage
}

// commands are the subcommands that "llmprober help COMMAND" explains.
var commands = []string{"demo", "run", "check", "sim", "bench", "compare", "rules", "version"}

// helpCmd is "llmprober help [COMMAND]": the global usage, or COMMAND's own
// help (what "llmprober COMMAND --help" prints), on stdout.
func helpCmd(ctx context.Context, args []string, stdout, stderr io.Writer, environ map[string]string) error {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return nil
	case len(args) > 1 || !slices.Contains(commands, args[0]):
		fmt.Fprintf(stderr, "help takes one of %s; got %q\n", strings.Join(commands, ", "), strings.Join(args, " "))
		return errUsage
	}
	if err := Run(ctx, []string{args[0], "--help"}, stdout, stdout, environ); err != nil && !errors.Is(err, errHelp) {
		return err
	}
	return nil
}

// exitCode maps Run's error to the process exit code.
func exitCode(err error) int {
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage), errors.Is(err, errInvalid), errors.As(err, new(inputError)):
		return 2
	case errors.Is(err, errGateInconclusive):
		return gateExitInconclusive
	case errors.Is(err, errCannotCompare):
		return compareExitCannot
	}
	return 1
}

// commonFlags are the flags shared by run, check and demo.
type commonFlags struct {
	config, listen, logLevel, webConfig string
}

func newFlagSet(name string, stderr io.Writer, f *commonFlags, withConfig, withServe bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if withConfig {
		fs.StringVar(&f.config, "config", "", "configuration file (YAML); default $LLMPROBER_CONFIG")
	}
	if withServe {
		fs.StringVar(&f.listen, "listen-address", "", "HTTP listen address; default $LLMPROBER_LISTEN_ADDRESS or 127.0.0.1:9477")
		fs.StringVar(&f.logLevel, "log-level", "", "debug, info, warn or error; default $LLMPROBER_LOG_LEVEL or info")
	}
	if withConfig && withServe {
		fs.StringVar(&f.webConfig, "web-config-file", "", "exporter-toolkit web configuration (TLS, basic auth) for the HTTP server")
	}
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		return errUsage
	}
	return nil
}

// versionCmd prints the version and the source revision; --help prints
// its usage.
func versionCmd(args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		fmt.Fprint(stdout, "Usage: llmprober version\n  Print the version and the source revision.\n")
		return nil
	case len(args) > 0:
		fmt.Fprintf(stderr, "version takes no arguments\n")
		return errUsage
	}
	fmt.Fprintf(stdout, "llmprober %s (revision %s)\n", buildVersion(), buildRevision())
	return nil
}

// buildRevision returns the revision set at link time, else the embedded
// VCS revision, else "unknown".
func buildRevision() string { return buildinfo.Revision() }

// buildVersion returns the version set at link time or recorded by the Go toolchain.
func buildVersion() string { return buildinfo.Version() }
