package deploy

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// Build arguments the test passes, to find them again in the binary.
const (
	testVersion  = "v0.0.0-imagetest"
	testRevision = "0123456789abcdef"
)

// shellWords splits a shell command of plain words and double-quoted
// strings, expanding ${NAME} and $NAME from vars; anything else a shell
// would interpret (operators, substitutions, single quotes, an unknown
// variable) is an error, so the test runs exactly what the shell would.
func shellWords(s string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted, inWord = !quoted, true
		case c == '$':
			name, n, err := varName(s[i+1:])
			if err != nil {
				return nil, err
			}
			v, ok := vars[name]
			if !ok {
				return nil, fmt.Errorf("unknown variable $%s", name)
			}
			cur.WriteString(v)
			i += n
			inWord = true
		case !quoted && (c == ' ' || c == '\t'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case !quoted && strings.IndexByte("\\'`;&|<>()*?[]{}~#", c) >= 0, quoted && strings.IndexByte("\\`", c) >= 0:
			return nil, fmt.Errorf("unsupported shell syntax %q at offset %d", c, i)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated double quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// varPattern is a variable reference after '$': {NAME} or NAME.
var varPattern = regexp.MustCompile(`^(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// varName reads a variable reference at the start of s; n is the number of
// bytes read.
func varName(s string) (name string, n int, err error) {
	m := varPattern.FindStringSubmatch(s)
	if m == nil {
		return "", 0, fmt.Errorf("unsupported $ expansion before %q", s)
	}
	return m[1] + m[2], len(m[0]), nil
}

func TestShellWords(t *testing.T) {
	vars := map[string]string{"A": "x y", "B": "2"}
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{`CGO_ENABLED=0 go build -ldflags="-s -X m.v=${A}" -o /o ./c`, []string{"CGO_ENABLED=0", "go", "build", "-ldflags=-s -X m.v=x y", "-o", "/o", "./c"}, ""},
		{`GOOS=$B  go`, []string{"GOOS=2", "go"}, ""},
		{`a && b`, nil, `unsupported shell syntax '&'`},
		{`echo $(id)`, nil, "unsupported $ expansion"},
		{`echo ${C}`, nil, "unknown variable $C"},
		{`echo "a`, nil, "unterminated double quote"},
		{`echo 'a'`, nil, `unsupported shell syntax '\''`},
	}
	for _, tc := range tests {
		got, err := shellWords(tc.in, vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("shellWords(%q) error = %v; want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// buildCommand returns the environment assignments and argv of the build
// stage's go build RUN line, with the build arguments expanded and the
// output sent to out.
func buildCommand(t *testing.T, out string) (env, argv []string) {
	t.Helper()
	df := readDockerfile(t)
	var runs []instruction
	for _, in := range df.stages[0].find("RUN") {
		if strings.Contains(in.args, "go build") {
			runs = append(runs, in)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("build stage has %d RUN lines with go build; want 1", len(runs))
	}
	cmd := runs[0].args
	for strings.HasPrefix(cmd, "--") { // RUN flags such as --mount=type=cache,…
		_, cmd, _ = strings.Cut(cmd, " ")
	}
	vars := map[string]string{"TARGETOS": runtime.GOOS, "TARGETARCH": runtime.GOARCH, "VERSION": testVersion, "REVISION": testRevision}
	words, err := shellWords(cmd, vars)
	if err != nil {
		t.Fatalf("line %d: %v", runs[0].line, err)
	}
	for len(words) > 0 && strings.Contains(words[0], "=") {
		env, words = append(env, words[0]), words[1:]
	}
	if len(words) < 2 || words[0] != "go" || words[1] != "build" {
		t.Fatalf("line %d: %q is not a go build command", runs[0].line, cmd)
	}
	if i := slices.Index(words, "-o"); i < 0 || i+1 >= len(words) {
		t.Fatalf("line %d: go build without -o", runs[0].line)
	} else {
		words[i+1] = out
	}
	return env, words
}

// checkBuildFlags checks that the build is static, reproducible and stamped.
func checkBuildFlags(t *testing.T, env, argv []string) {
	t.Helper()
	if !slices.Contains(env, "CGO_ENABLED=0") {
		t.Errorf("build environment %v lacks CGO_ENABLED=0", env)
	}
	if !slices.Contains(argv, "-trimpath") {
		t.Errorf("go build %v lacks -trimpath", argv)
	}
	i := slices.IndexFunc(argv, func(a string) bool { return strings.HasPrefix(a, "-ldflags=") })
	if i < 0 || !strings.Contains(argv[i], "-X main.version="+testVersion) || !strings.Contains(argv[i], "-X main.revision="+testRevision) {
		t.Errorf("go build %v does not stamp main.version and main.revision from the build arguments", argv)
	}
	if argv[len(argv)-1] != "./cmd/llmprober" {
		t.Errorf("go build builds %s; want ./cmd/llmprober", argv[len(argv)-1])
	}
}

// staticELF returns an error unless path is an ELF executable without a
// program interpreter (PT_INTERP) or needed shared libraries (DT_NEEDED).
func staticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s has a program interpreter (dynamically linked)", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(libs) > 0 {
		return fmt.Errorf("%s needs shared libraries %v", path, libs)
	}
	return nil
}

func TestStaticELFDetectsDynamicBinaries(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ELF only")
	}
	path, err := exec.LookPath("ls")
	if err != nil {
		t.Skip("no ls to compare with")
	}
	if err := staticELF(path); err == nil {
		t.Skipf("%s is statically linked here; nothing to compare with", path)
	} else if !strings.Contains(err.Error(), "interpreter") && !strings.Contains(err.Error(), "shared libraries") {
		t.Errorf("staticELF(%s) = %v; want a dynamic-linking error", path, err)
	}
}

// TestDockerfileBuild runs the Dockerfile's go build command, then checks
// the binary the image would hold: static, stamped, and serving the
// sidecar's env-only configuration without writing a file.
func TestDockerfileBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the image is linux; the ELF checks need linux")
	}
	bin := filepath.Join(t.TempDir(), "llmprober")
	env, argv := buildCommand(t, bin)
	checkBuildFlags(t, env, argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(append(env, argv...), " "), err, out)
	}
	if err := staticELF(bin); err != nil {
		t.Fatal(err)
	}
	t.Run("version", func(t *testing.T) {
		out, err := exec.Command(bin, "version").Output()
		want := "llmprober " + testVersion + " (revision " + testRevision + ")\n"
		if err != nil || string(out) != want {
			t.Errorf("version = %q, %v; want %q", out, err, want)
		}
	})
	t.Run("sidecar env, nothing written", func(t *testing.T) { runSidecar(t, bin) })
}

// syncBuffer is a bytes.Buffer safe for a process's output and a reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

// Write appends p.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// process is a started command and its output.
type process struct {
	cmd    *exec.Cmd
	stdout syncBuffer
	stderr syncBuffer
}

// start runs bin with args in dir with exactly env; the test stops it at
// the end unless it was stopped already.
func start(t *testing.T, bin, dir string, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...)}
	p.cmd.Dir, p.cmd.Env = dir, env
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

// await polls p's stdout for re until the deadline; it returns the first
// submatch.
func (p *process) await(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(p.stdout.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %q in stdout %q; stderr %q", re, p.stdout.String(), p.stderr.String())
	return ""
}

// stop sends SIGTERM and waits for a clean exit.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("%s after SIGTERM: %v; stderr %q", p.cmd.Args, err, p.stderr.String())
	}
}

// runSidecar runs bin like the sidecar of deploy/kubernetes: the
// manifest's environment, with the target moved to a local sim, in an
// empty working directory, HOME and TMPDIR, and checks that it becomes
// ready, exports the stamped build info and leaves the directories empty.
func runSidecar(t *testing.T, bin string) {
	root := t.TempDir()
	dirs := map[string]string{}
	for _, d := range []string{"cwd", "home", "tmp"} {
		dirs[d] = filepath.Join(root, d)
		if err := os.Mkdir(dirs[d], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"HOME=" + dirs["home"], "TMPDIR=" + dirs["tmp"]}
	sim := start(t, bin, dirs["cwd"], base, "sim", "--listen-address", "127.0.0.1:0", "--ttft", "5ms", "--itl", "1ms")
	simURL := sim.await(t, regexp.MustCompile(`endpoint: (http://\S+/v1) `))

	dep := only[appsv1.Deployment](t, manifests(t))
	env := sidecarEnv(t, container(t, &dep.Spec.Template.Spec, "llmprober"))
	env["LLMPROBER_TARGET_URL"], env["LLMPROBER_MODEL"], env["LLMPROBER_LISTEN_ADDRESS"] = simURL, "sim-model", "127.0.0.1:0"
	vars := slices.Clone(base)
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	prober := start(t, bin, dirs["cwd"], vars, "run")
	addr := prober.await(t, regexp.MustCompile(`listening on (\S+)\n`))

	waitReady(t, "http://"+addr+"/-/ready")
	metrics := get(t, "http://"+addr+"/metrics")
	want := regexp.MustCompile(fmt.Sprintf(`llmprober_build_info\{[^}]*revision=%q,service_instance_id="inference\.vllm-5d8f7c9b6-x2x7k\.llmprober",service_name="llmprober",version=%q\} 1`,
		testRevision, testVersion))
	if !want.MatchString(metrics) {
		t.Errorf("llmprober_build_info does not match %s", want)
	}
	if !regexp.MustCompile(`llmprober_requests_total\{[^}]*outcome="successful"[^}]*target="vllm"[^}]*\} [1-9]`).MatchString(metrics) {
		t.Errorf("no successful request of target vllm in /metrics")
	}
	prober.stop(t)
	sim.stop(t)
	for name, d := range dirs {
		if entries, err := os.ReadDir(d); err != nil || len(entries) > 0 {
			t.Errorf("%s %s holds %v (%v); want nothing written", name, d, entries, err)
		}
	}
}

// waitReady polls url until it answers 200.
func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := httpGet(url)
		if err == nil && resp.StatusCode == http.StatusOK {
			return
		}
		if last = fmt.Sprint(err); resp != nil {
			last = resp.Status + " " + resp.Body
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s not ready after 30s: %s", url, last)
}

// get returns the body of a 200 answer to GET url.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := httpGet(url)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", url, resp, err)
	}
	return resp.Body
}

// response is what httpGet keeps of an answer.
type response struct {
	StatusCode int
	Status     string
	Body       string
}

// httpGet fetches url with a bounded wait, closing every connection.
func httpGet(url string) (*response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &response{StatusCode: resp.StatusCode, Status: resp.Status, Body: string(body)}, nil
}
