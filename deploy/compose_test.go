package deploy

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/prometheus/common/model"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/slo"
)

// composeFile is the compose stack, relative to this package.
const composeFile = "compose/compose.yml"

// dashboardFiles are the generated dashboards, relative to the repository.
var dashboardFiles = []string{"dashboards/llmprober-overview.json", "dashboards/llmprober-prober-health.json"}

// loadCompose loads the compose stack with the loader docker compose uses:
// schema validation, interpolation, paths resolved.
func loadCompose(t *testing.T) *types.Project {
	t.Helper()
	abs, err := filepath.Abs(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	details := types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs}},
		Environment: types.Mapping{},
	}
	p, err := loader.LoadWithContext(context.Background(), details, func(o *loader.Options) {
		o.SetProjectName("llmprober", true)
	})
	if err != nil {
		t.Fatalf("%s: %v", composeFile, err)
	}
	return p
}

// service returns the compose service called name.
func service(t *testing.T, p *types.Project, name string) types.ServiceConfig {
	t.Helper()
	s, ok := p.Services[name]
	if !ok {
		t.Fatalf("%s has no service %q", composeFile, name)
	}
	return s
}

// hostPath returns the host file that svc sees at the absolute container
// path target, through its bind mounts (the longest matching one wins).
func hostPath(svc types.ServiceConfig, target string) (string, bool) {
	best, found := "", false
	bestLen := -1
	for _, v := range svc.Volumes {
		if v.Type != types.VolumeTypeBind {
			continue
		}
		rel, ok := strings.CutPrefix(target, v.Target)
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) || len(v.Target) <= bestLen {
			continue
		}
		best, found, bestLen = filepath.Join(v.Source, filepath.FromSlash(rel)), true, len(v.Target)
	}
	return best, found
}

// mustHostPath is hostPath failing the test when nothing is mounted there
// or the host file does not exist.
func mustHostPath(t *testing.T, svc types.ServiceConfig, target string) string {
	t.Helper()
	p, ok := hostPath(svc, target)
	if !ok {
		t.Fatalf("service %s mounts nothing at %s", svc.Name, target)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("service %s: %s is mounted from %v", svc.Name, target, err)
	}
	return p
}

// flagArg returns the value of --name=value or --name value in args.
func flagArg(args []string, name string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
		if a == name && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

func TestComposeServices(t *testing.T) {
	p := loadCompose(t)
	if names := p.ServiceNames(); !reflect.DeepEqual(names, []string{"grafana", "llmprober", "prometheus", "sim"}) {
		t.Errorf("services = %v; want grafana, llmprober, prometheus, sim", names)
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sim", "llmprober"} {
		s := service(t, p, name)
		if s.Build == nil || s.Build.Context != repo {
			t.Errorf("%s builds %+v; want the repository's Dockerfile (context %s)", name, s.Build, repo)
		}
		if !s.ReadOnly {
			t.Errorf("%s: read_only is not set; the image needs no writable root", name)
		}
		if uid, _, _ := strings.Cut(s.User, ":"); uid != imageUser(t) {
			t.Errorf("%s runs as %q; want the image's user %s", name, s.User, imageUser(t))
		}
	}
}

// composeConfig loads and checks the llmprober configuration the compose
// stack mounts, as "llmprober check" would.
func composeConfig(t *testing.T, p *types.Project) *config.Config {
	t.Helper()
	prober := service(t, p, "llmprober")
	cmd := []string(prober.Command)
	cfgPath, ok := flagArg(cmd, "--config")
	if len(cmd) == 0 || cmd[0] != "run" || !ok {
		t.Fatalf("llmprober command %v; want run --config FILE", cmd)
	}
	cfg, err := config.Resolve(config.Env{}, config.Overrides{ConfigPath: mustHostPath(t, prober, cfgPath)})
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestComposeProbesTheSim(t *testing.T) {
	p := loadCompose(t)
	cfg := composeConfig(t, p)
	sim := []string(service(t, p, "sim").Command)
	addr, ok := flagArg(sim, "--listen-address")
	if len(sim) == 0 || sim[0] != "sim" || !ok {
		t.Fatalf("sim command %v; want sim --listen-address ADDR", sim)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		t.Fatalf("sim --listen-address %q; want :PORT (all interfaces)", addr)
	}
	for _, target := range cfg.Targets {
		u, err := url.Parse(target.BaseURL)
		if err != nil || u.Hostname() != "sim" || u.Port() != port {
			t.Errorf("target %s base_url %s; want http://sim:%s/v1", target.Name, target.BaseURL, port)
		}
	}
	if len(cfg.Targets) == 0 {
		t.Error("the compose configuration has no target")
	}
}

func TestComposeObjectivesMatchTheRules(t *testing.T) {
	cfg := composeConfig(t, loadCompose(t))
	byTarget := map[string][]slo.Objective{}
	for i := range cfg.Targets {
		byTarget[cfg.Targets[i].Name] = cfg.Targets[i].SLOObjectives()
	}
	// The stack loads the committed deploy/llmprober-rules.yml, written for
	// these objective sets.
	if got, want := slo.RuleObjectives(byTarget), slo.DefaultRuleObjectives(); !reflect.DeepEqual(got, want) {
		t.Errorf("objective sets of the compose configuration = %+v; want %+v, those of llmprober-rules.yml", got, want)
	}
}

// prometheusConfig is the part of a Prometheus configuration file the
// stack uses; decoding rejects anything else.
type prometheusConfig struct {
	Global struct {
		ScrapeInterval     string `yaml:"scrape_interval"`
		EvaluationInterval string `yaml:"evaluation_interval"`
	} `yaml:"global"`
	RuleFiles     []string `yaml:"rule_files"`
	ScrapeConfigs []struct {
		JobName       string `yaml:"job_name"`
		StaticConfigs []struct {
			Targets []string `yaml:"targets"`
		} `yaml:"static_configs"`
	} `yaml:"scrape_configs"`
}

// composePrometheusConfig decodes the Prometheus configuration the
// prometheus service loads; it returns its path inside the container too.
func composePrometheusConfig(t *testing.T, prom types.ServiceConfig) (prometheusConfig, string) {
	t.Helper()
	configFile, ok := flagArg([]string(prom.Command), "--config.file")
	if !ok {
		t.Fatalf("prometheus command %v has no --config.file", prom.Command)
	}
	hostConfig := mustHostPath(t, prom, configFile)
	data, err := os.ReadFile(hostConfig)
	if err != nil {
		t.Fatal(err)
	}
	var pc prometheusConfig
	if err := decodeKnown(hostConfig, data, &pc); err != nil {
		t.Fatal(err)
	}
	return pc, configFile
}

func TestComposePrometheus(t *testing.T) {
	p := loadCompose(t)
	prom := service(t, p, "prometheus")
	checkRetention(t, []string(prom.Command), composeConfig(t, p))
	pc, configFile := composePrometheusConfig(t, prom)
	rules := mountedRuleFiles(t, prom, path.Dir(configFile), pc.RuleFiles)
	committed, err := filepath.Abs("llmprober-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rules, committed) {
		t.Errorf("Prometheus loads %v; want the committed %s among them", rules, committed)
	}
	listen := composeConfig(t, p).ListenAddress
	_, port, _ := net.SplitHostPort(listen)
	var targets []string
	for _, sc := range pc.ScrapeConfigs {
		for _, st := range sc.StaticConfigs {
			if want := net.JoinHostPort("llmprober", port); slices.Contains(st.Targets, want) && sc.JobName != slo.DefaultRuleOptions().Job {
				t.Errorf("Prometheus scrapes llmprober as job %q; LLMProberDown of the bundled rules watches job %q", sc.JobName, slo.DefaultRuleOptions().Job)
			}
			targets = append(targets, st.Targets...)
		}
	}
	if want := net.JoinHostPort("llmprober", port); !slices.Contains(targets, want) {
		t.Errorf("Prometheus scrapes %v; want %s (service llmprober, listen_address %s)", targets, want, listen)
	}
	promtoolCheckConfig(t, prom, configFile)
}

// checkRetention checks that --storage.tsdb.retention.time covers the
// longest SLO period of cfg plus the longest alert window.
func checkRetention(t *testing.T, cmd []string, cfg *config.Config) {
	t.Helper()
	v, ok := flagArg(cmd, "--storage.tsdb.retention.time")
	if !ok {
		t.Fatalf("prometheus command %v sets no --storage.tsdb.retention.time (default 15d)", cmd)
	}
	retention, err := model.ParseDuration(v)
	if err != nil {
		t.Fatalf("--storage.tsdb.retention.time=%s: %v", v, err)
	}
	var period time.Duration
	for _, target := range cfg.Targets {
		for _, o := range target.SLOObjectives() {
			period = max(period, o.Period)
		}
	}
	if period == 0 {
		t.Fatal("the compose configuration has no objective set")
	}
	need := period + slices.Max(slo.RuleWindows)
	if time.Duration(retention) < need {
		t.Errorf("retention %s < SLO period %s + longest alert window %s", v, slo.PromDuration(period), slo.PromDuration(slices.Max(slo.RuleWindows)))
	}
}

// mountedRuleFiles returns the host files of Prometheus's rule files,
// relative names taken relative to the configuration's directory dir.
func mountedRuleFiles(t *testing.T, prom types.ServiceConfig, dir string, ruleFiles []string) []string {
	t.Helper()
	if len(ruleFiles) == 0 {
		t.Fatal("Prometheus loads no rule file")
	}
	var out []string
	for _, rf := range ruleFiles {
		if !path.IsAbs(rf) {
			rf = path.Join(dir, rf)
		}
		out = append(out, mustHostPath(t, prom, rf))
	}
	return out
}

// promtoolCheckConfig runs "promtool check config" on the configuration as
// the container sees it: every file it and its rule files need is copied to
// the same place under a temporary root. It is skipped without promtool,
// unless LLMPROBER_REQUIRE_INTEGRATION=1.
func promtoolCheckConfig(t *testing.T, prom types.ServiceConfig, configFile string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("LLMPROBER_REQUIRE_INTEGRATION") == "1" {
			t.Fatal("promtool not found (Debian package prometheus)")
		}
		t.Log("promtool not found; promtool check config skipped")
		return
	}
	root := t.TempDir()
	for _, v := range prom.Volumes {
		if v.Type != types.VolumeTypeBind {
			continue
		}
		dst := filepath.Join(root, filepath.FromSlash(v.Target))
		if err := copyFile(v.Source, dst); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(promtool, "check", "config", filepath.Join(root, filepath.FromSlash(configFile))).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SUCCESS: 1 rule files found") {
		t.Errorf("promtool check config found no rule file:\n%s", out)
	}
}

// copyFile copies the regular file src to dst, creating dst's directory.
func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func TestHostPath(t *testing.T) {
	svc := types.ServiceConfig{ContainerSpec: types.ContainerSpec{Volumes: []types.ServiceVolumeConfig{
		{Type: types.VolumeTypeBind, Source: "/h/prov", Target: "/etc/grafana/provisioning"},
		{Type: types.VolumeTypeBind, Source: "/h/d.json", Target: "/etc/grafana/provisioning/dashboards/d.json"},
		{Type: types.VolumeTypeVolume, Source: "data", Target: "/var/lib/grafana"},
	}}}
	tests := []struct {
		target, want string
		ok           bool
	}{
		{"/etc/grafana/provisioning/datasources/p.yml", "/h/prov/datasources/p.yml", true},
		{"/etc/grafana/provisioning/dashboards/d.json", "/h/d.json", true},
		{"/etc/grafana/provisioning", "/h/prov", true},
		{"/etc/grafana/provisioningx/a", "", false},
		{"/var/lib/grafana/x", "", false},
	}
	for _, tc := range tests {
		got, ok := hostPath(svc, tc.target)
		if got != filepath.FromSlash(tc.want) || ok != tc.ok {
			t.Errorf("hostPath(%s) = %q, %v; want %q, %v", tc.target, got, ok, tc.want, tc.ok)
		}
	}
}
