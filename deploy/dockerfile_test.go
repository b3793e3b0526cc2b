package deploy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
)

// dockerfilePath is the image's Dockerfile, relative to this package.
const dockerfilePath = "../Dockerfile"

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case
	args string
}

// stage is one build stage: its FROM arguments and its instructions.
type stage struct {
	from  instruction
	image string // the FROM image reference
	name  string // the AS name, or ""
	instr []instruction
}

// dockerfile is a parsed Dockerfile: the ARGs before the first FROM and the
// stages in order.
type dockerfile struct {
	globals []instruction
	stages  []stage
}

// parseDockerfile splits data into instructions and stages; comments and
// parser directives are dropped.
func parseDockerfile(data []byte) (dockerfile, error) {
	var df dockerfile
	sc := bufio.NewScanner(bytes.NewReader(data))
	var cur strings.Builder
	start := 0
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		if body, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(strings.TrimSpace(body) + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		cur.Reset()
		in := instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if err := df.add(in); err != nil {
			return df, err
		}
	}
	if cur.Len() > 0 {
		return df, fmt.Errorf("line %d: continuation at end of file", start)
	}
	return df, sc.Err()
}

// add appends in to the current stage, or starts a stage with a FROM.
func (df *dockerfile) add(in instruction) error {
	if in.cmd == "FROM" {
		fields := strings.Fields(in.args)
		for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
			fields = fields[1:]
		}
		st := stage{from: in}
		switch {
		case len(fields) == 1:
			st.image = fields[0]
		case len(fields) == 3 && strings.EqualFold(fields[1], "AS"):
			st.image, st.name = fields[0], fields[2]
		default:
			return fmt.Errorf("line %d: FROM %s: want IMAGE [AS NAME]", in.line, in.args)
		}
		df.stages = append(df.stages, st)
		return nil
	}
	if len(df.stages) == 0 {
		if in.cmd != "ARG" {
			return fmt.Errorf("line %d: %s before the first FROM", in.line, in.cmd)
		}
		df.globals = append(df.globals, in)
		return nil
	}
	last := &df.stages[len(df.stages)-1]
	last.instr = append(last.instr, in)
	return nil
}

// find returns the stage's instructions of cmd.
func (st stage) find(cmd string) []instruction {
	var out []instruction
	for _, in := range st.instr {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// argDefaults returns NAME → default of ARG instructions; an ARG without a
// default maps to "".
func argDefaults(ins []instruction) map[string]string {
	out := map[string]string{}
	for _, in := range ins {
		if in.cmd != "ARG" {
			continue
		}
		for _, f := range strings.Fields(in.args) {
			name, def, _ := strings.Cut(f, "=")
			out[name] = def
		}
	}
	return out
}

// execForm decodes an exec-form (JSON array) argument list.
func execForm(in instruction) ([]string, error) {
	var argv []string
	if err := json.Unmarshal([]byte(in.args), &argv); err != nil || len(argv) == 0 {
		return nil, fmt.Errorf("line %d: %s %s is not in exec form (a JSON array of strings)", in.line, in.cmd, in.args)
	}
	return argv, nil
}

// readDockerfile parses the repository's Dockerfile.
func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	data, err := os.ReadFile(dockerfilePath)
	if err != nil {
		t.Fatal(err)
	}
	df, err := parseDockerfile(data)
	if err != nil {
		t.Fatalf("%s: %v", dockerfilePath, err)
	}
	if len(df.stages) < 2 {
		t.Fatalf("%s has %d stages; want a build stage and a final stage", dockerfilePath, len(df.stages))
	}
	return df
}

// single returns the only instruction of cmd in st, failing otherwise.
func single(t *testing.T, st stage, cmd string) instruction {
	t.Helper()
	ins := st.find(cmd)
	if len(ins) != 1 {
		t.Fatalf("final stage has %d %s instructions; want 1", len(ins), cmd)
	}
	return ins[0]
}

// imageUser returns the numeric user id the image runs as.
func imageUser(t *testing.T) string {
	t.Helper()
	df := readDockerfile(t)
	user := single(t, df.stages[len(df.stages)-1], "USER").args
	uid, _, _ := strings.Cut(user, ":")
	return uid
}

// finalImage is what the final stage may start from: distroless static
// with its non-root user, or scratch.
var finalImage = regexp.MustCompile(`^(scratch|gcr\.io/distroless/static(-debian\d+)?:nonroot(@sha256:[0-9a-f]{64})?)$`)

func TestDockerfileFinalStage(t *testing.T) {
	df := readDockerfile(t)
	final := df.stages[len(df.stages)-1]
	if !finalImage.MatchString(final.image) {
		t.Errorf("final stage FROM %s; want gcr.io/distroless/static…:nonroot or scratch", final.image)
	}
	for _, cmd := range []string{"RUN", "HEALTHCHECK"} {
		if ins := final.find(cmd); len(ins) > 0 {
			t.Errorf("line %d: final stage has %s; the image has no shell", ins[0].line, cmd)
		}
	}
	if user := single(t, final, "USER").args; !regexp.MustCompile(`^[1-9][0-9]*(:[0-9]+)?$`).MatchString(user) {
		t.Errorf("USER %s; want a numeric non-root uid (runAsNonRoot cannot verify a name)", user)
	}
	copyArgs := strings.Fields(single(t, final, "COPY").args)
	if len(copyArgs) != 3 || copyArgs[0] != "--from="+df.stages[0].name {
		t.Fatalf("final stage COPY %v; want the binary from the build stage %q", copyArgs, df.stages[0].name)
	}
	entry, err := execForm(single(t, final, "ENTRYPOINT"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entry) != 1 || entry[0] != copyArgs[2] {
		t.Errorf("ENTRYPOINT %v; want [%q], the copied binary", entry, copyArgs[2])
	}
	cmd, err := execForm(single(t, final, "CMD"))
	if err != nil || cmd[0] != "run" {
		t.Errorf("CMD %v (%v); want [\"run\", …]", cmd, err)
	}

	env := single(t, final, "ENV").args
	addr, ok := strings.CutPrefix(env, "LLMPROBER_LISTEN_ADDRESS=")
	host, port, err := net.SplitHostPort(addr)
	if !ok || err != nil || (host != "" && host != "0.0.0.0") {
		t.Fatalf("ENV %s; want LLMPROBER_LISTEN_ADDRESS on all interfaces", env)
	}
	if expose := single(t, final, "EXPOSE").args; expose != port {
		t.Errorf("EXPOSE %s; want the listen port %s", expose, port)
	}
}

func TestDockerfileBuildStage(t *testing.T) {
	df := readDockerfile(t)
	build := df.stages[0]
	goMod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	if m == nil {
		t.Fatal("no go directive in go.mod")
	}
	if got := argDefaults(df.globals)["GO_VERSION"]; got != string(m[1]) {
		t.Errorf("ARG GO_VERSION=%s; want go.mod's go %s", got, m[1])
	}
	if !strings.HasPrefix(build.image, "golang:${GO_VERSION}") {
		t.Errorf("build stage FROM %s; want golang:${GO_VERSION}…", build.image)
	}
	args := argDefaults(build.instr)
	for _, name := range []string{"VERSION", "REVISION", "TARGETOS", "TARGETARCH"} {
		if _, ok := args[name]; !ok {
			t.Errorf("build stage declares no ARG %s", name)
		}
	}
}

func TestParseDockerfileRejects(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"instruction before FROM", "RUN true\nFROM scratch\n", "line 1: RUN before the first FROM"},
		{"bad FROM", "FROM a b\n", "line 1: FROM a b"},
		{"dangling continuation", "FROM scratch\nCMD [\"a\"] \\\n", "continuation at end of file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseDockerfile([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseDockerfileJoinsLines(t *testing.T) {
	df, err := parseDockerfile([]byte("# syntax=docker/dockerfile:1\nARG V=1\nFROM golang:${V} AS b\nRUN a \\\n  b\n\nFROM scratch\nCOPY --from=b /x /x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := dockerfile{
		globals: []instruction{{2, "ARG", "V=1"}},
		stages: []stage{
			{from: instruction{3, "FROM", "golang:${V} AS b"}, image: "golang:${V}", name: "b", instr: []instruction{{4, "RUN", "a b"}}},
			{from: instruction{7, "FROM", "scratch"}, image: "scratch", instr: []instruction{{8, "COPY", "--from=b /x /x"}}},
		},
	}
	if fmt.Sprint(df) != fmt.Sprint(want) {
		t.Errorf("parsed\n%+v\nwant\n%+v", df, want)
	}
}
