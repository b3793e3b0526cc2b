package deploy

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/slo"
)

// kinds maps "apiVersion/kind" to a new value of the Kubernetes type that
// documents of that kind decode into; a manifest of any other kind fails
// the tests until it is added here.
var kinds = map[string]func() any{
	"apps/v1/Deployment": func() any { return &appsv1.Deployment{} },
	"v1/Service":         func() any { return &corev1.Service{} },
	"v1/ConfigMap":       func() any { return &corev1.ConfigMap{} },
	"monitoring.coreos.com/v1/ServiceMonitor": func() any { return &monitoringv1.ServiceMonitor{} },
	"monitoring.coreos.com/v1/PodMonitor":     func() any { return &monitoringv1.PodMonitor{} },
	"monitoring.coreos.com/v1/PrometheusRule": func() any { return &monitoringv1.PrometheusRule{} },
}

// manifest is one decoded Kubernetes object and where it came from.
type manifest struct {
	doc document
	obj any
}

// manifests decodes every document under deploy/ that has an apiVersion and
// a kind into its Kubernetes type, rejecting unknown and duplicate fields.
func manifests(t *testing.T) []manifest {
	t.Helper()
	var out []manifest
	for _, f := range yamlFiles(t, ".") {
		for _, d := range readDocuments(t, f) {
			m, ok := d.value.(map[string]any)
			if !ok {
				continue
			}
			apiVersion, _ := m["apiVersion"].(string)
			kind, _ := m["kind"].(string)
			if apiVersion == "" || kind == "" {
				continue
			}
			obj, err := decodeManifest(d, apiVersion+"/"+kind)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, manifest{doc: d, obj: obj})
		}
	}
	return out
}

// decodeManifest decodes d strictly into the type of key ("apiVersion/kind").
func decodeManifest(d document, key string) (any, error) {
	newObj, ok := kinds[key]
	if !ok {
		return nil, fmt.Errorf("%v: no Go type known for %s", d, key)
	}
	obj := newObj()
	if err := yaml.UnmarshalStrict(d.raw, obj); err != nil {
		return nil, fmt.Errorf("%v: %s: %w", d, key, err)
	}
	return obj, nil
}

// only returns the single manifest of type T, failing unless there is
// exactly one.
func only[T any](t *testing.T, ms []manifest) *T {
	t.Helper()
	var found []*T
	for _, m := range ms {
		if o, ok := m.obj.(*T); ok {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d manifests of type %T; want 1", len(found), *new(T))
	}
	return found[0]
}

func TestManifestsDecodeStrictly(t *testing.T) {
	ms := manifests(t)
	counts := map[string]int{}
	for _, m := range ms {
		v := reflect.ValueOf(m.obj).Elem()
		meta := v.FieldByName("ObjectMeta").Interface().(metav1.ObjectMeta)
		tm := v.FieldByName("TypeMeta").Interface().(metav1.TypeMeta)
		if meta.Name == "" {
			t.Errorf("%v: %s has no metadata.name", m.doc, tm.Kind)
		}
		counts[tm.Kind]++
	}
	want := map[string]int{"Deployment": 1, "Service": 1, "ServiceMonitor": 1, "PodMonitor": 1, "PrometheusRule": 1}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("manifests by kind = %v; want %v", counts, want)
	}
}

func TestDecodeManifestRejects(t *testing.T) {
	tests := []struct {
		name, key, data, want string
	}{
		{"unknown field", "v1/Service", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {portz: []}\n", `unknown field "portz"`},
		{"duplicate field", "v1/Service", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nmetadata: {name: y}\n", "already"},
		{"wrong type", "monitoring.coreos.com/v1/PodMonitor", "apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: x}\nspec: {podMetricsEndpoints: {port: metrics}}\n", "cannot unmarshal"},
		{"unknown kind", "v1/Pod", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "no Go type known for v1/Pod"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeManifest(document{file: "x.yml", raw: []byte(tc.data)}, tc.key)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// container returns the container called name of spec.
func container(t *testing.T, spec *corev1.PodSpec, name string) *corev1.Container {
	t.Helper()
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	t.Fatalf("no container %q", name)
	return nil
}

// containerPort returns the number of c's port called name, or 0.
func containerPort(c *corev1.Container, name string) int32 {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	return 0
}

// podPortNames lists the names of every container port of spec.
func podPortNames(spec *corev1.PodSpec) []string {
	var names []string
	for _, c := range spec.Containers {
		for _, p := range c.Ports {
			names = append(names, p.Name)
		}
	}
	return names
}

// matches reports whether sel selects set.
func matches(t *testing.T, sel *metav1.LabelSelector, set map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector %v: %v", sel, err)
	}
	return !s.Empty() && s.Matches(labels.Set(set))
}

func TestSidecarDeployment(t *testing.T) {
	ms := manifests(t)
	dep := only[appsv1.Deployment](t, ms)
	pod := &dep.Spec.Template
	if !matches(t, dep.Spec.Selector, pod.Labels) {
		t.Errorf("Deployment selector %v does not select its pod labels %v", dep.Spec.Selector, pod.Labels)
	}
	prober := container(t, &pod.Spec, "llmprober")
	metricsPort := containerPort(prober, "metrics")
	env := sidecarEnv(t, prober)
	if _, port, err := net.SplitHostPort(env["LLMPROBER_LISTEN_ADDRESS"]); err != nil || port != strconv.Itoa(int(metricsPort)) {
		t.Errorf("LLMPROBER_LISTEN_ADDRESS = %q; want all interfaces on the port named metrics (%d)", env["LLMPROBER_LISTEN_ADDRESS"], metricsPort)
	}
	// Each replica's identity comes from its pod.
	if want := "service.instance.id=inference.vllm-5d8f7c9b6-x2x7k.llmprober,k8s.pod.name=vllm-5d8f7c9b6-x2x7k,k8s.namespace.name=inference,k8s.container.name=llmprober"; env["OTEL_RESOURCE_ATTRIBUTES"] != want {
		t.Errorf("OTEL_RESOURCE_ATTRIBUTES = %q; want %q", env["OTEL_RESOURCE_ATTRIBUTES"], want)
	}
	checkProbe(t, "liveness", prober.LivenessProbe, "/-/healthy")
	checkProbe(t, "readiness", prober.ReadinessProbe, "/-/ready")
	checkRestricted(t, prober.SecurityContext)
	if len(prober.VolumeMounts) != 0 {
		t.Errorf("llmprober mounts %v; it needs no volume (env-only, writes nothing)", prober.VolumeMounts)
	}

	cfg := sidecarConfig(t, env)
	vllm := container(t, &pod.Spec, "vllm")
	checkTargetIsVLLM(t, cfg.Targets[0], vllm)
	// The PrometheusRule is the committed rule file, written for these
	// objective sets.
	byTarget := map[string][]slo.Objective{cfg.Targets[0].Name: cfg.Targets[0].SLOObjectives()}
	if got, want := slo.RuleObjectives(byTarget), slo.DefaultRuleObjectives(); !reflect.DeepEqual(got, want) {
		t.Errorf("objective sets of the sidecar = %+v; want %+v, those of llmprober-prometheusrule.yml", got, want)
	}
}

// checkProbe checks that p is an HTTP GET of path on the port named metrics.
func checkProbe(t *testing.T, name string, p *corev1.Probe, path string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("llmprober has no HTTP %s probe", name)
		return
	}
	if p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "metrics" {
		t.Errorf("llmprober %s probe = GET %s on port %s; want GET %s on port metrics", name, p.HTTPGet.Path, p.HTTPGet.Port.String(), path)
	}
}

// checkRestricted checks that sc runs the container as the image's non-root
// user on a read-only root file system without privileges.
func checkRestricted(t *testing.T, sc *corev1.SecurityContext) {
	t.Helper()
	if sc == nil {
		t.Fatal("llmprober has no securityContext")
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"runAsNonRoot: true", sc.RunAsNonRoot != nil && *sc.RunAsNonRoot},
		{"readOnlyRootFilesystem: true", sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem},
		{"allowPrivilegeEscalation: false", sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation},
		{"runAsUser: the image's user", sc.RunAsUser != nil && strconv.FormatInt(*sc.RunAsUser, 10) == imageUser(t)},
		{"capabilities.drop: [ALL]", sc.Capabilities != nil && slices.Contains(sc.Capabilities.Drop, "ALL")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("llmprober securityContext lacks %s", c.name)
		}
	}
}

// downwardEnv are the variables the example takes from the downward API,
// with the values a test stands in for them, and the fields they read.
var downwardEnv = map[string]struct{ value, field string }{
	"POD_NAME":      {"vllm-5d8f7c9b6-x2x7k", "metadata.name"},
	"POD_NAMESPACE": {"inference", "metadata.namespace"},
}

// sidecarEnv returns the llmprober container's environment, checking that
// every variable is one llmprober reads (an OTEL_* variable, or one the
// downward API fills for OTEL_RESOURCE_ATTRIBUTES); downward API values
// are replaced by stand-ins and $(VAR) references expanded as Kubernetes
// does.
func sidecarEnv(t *testing.T, c *corev1.Container) map[string]string {
	t.Helper()
	known := knownEnvVars()
	env := map[string]string{}
	for _, e := range c.Env {
		d, downward := downwardEnv[e.Name]
		switch {
		case downward:
			if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != d.field {
				t.Errorf("llmprober env %s = %+v; want the downward API's %s", e.Name, e.ValueFrom, d.field)
			}
			env[e.Name] = d.value
			continue
		case !known[e.Name] && !strings.HasPrefix(e.Name, "OTEL_"):
			t.Errorf("llmprober env %s is not a variable llmprober reads", e.Name)
		case e.ValueFrom != nil:
			t.Errorf("llmprober env %s uses valueFrom; the example sets every other value literally", e.Name)
		}
		env[e.Name] = os.Expand(strings.ReplaceAll(strings.ReplaceAll(e.Value, "$(", "${"), ")", "}"),
			func(k string) string { return env[k] })
	}
	for k := range downwardEnv {
		delete(env, k)
	}
	return env
}

// sidecarConfig resolves and checks env as "llmprober check" would, failing
// on any problem; the result has exactly one target.
func sidecarConfig(t *testing.T, env map[string]string) *config.Config {
	t.Helper()
	e, err := config.FromEnv(env)
	if err != nil {
		t.Fatalf("sidecar env: %v", err)
	}
	cfg, err := config.Resolve(e, config.Overrides{})
	if err != nil {
		t.Fatalf("sidecar env: %v", err)
	}
	if err := cfg.Check(); err != nil {
		t.Fatalf("sidecar env: %v", err)
	}
	if len(cfg.Targets) != 1 {
		t.Fatalf("sidecar env defines %d targets; want 1", len(cfg.Targets))
	}
	return cfg
}

// checkTargetIsVLLM checks that target probes the vllm container over the
// pod's loopback, with vLLM's model and its health path as the start-up gate.
func checkTargetIsVLLM(t *testing.T, target config.Target, vllm *corev1.Container) {
	t.Helper()
	u, err := url.Parse(target.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	wantPort := strconv.Itoa(int(containerPort(vllm, "http")))
	if u.Hostname() != "127.0.0.1" || u.Port() != wantPort || u.Path != "/v1" {
		t.Errorf("target base_url = %s; want http://127.0.0.1:%s/v1 (vllm's port http)", target.BaseURL, wantPort)
	}
	if got := flagValue(vllm.Args, "--port"); got != wantPort {
		t.Errorf("vllm --port = %q; want its container port %s", got, wantPort)
	}
	if got := flagValue(vllm.Args, "--model"); got == "" || got != target.Model {
		t.Errorf("target model = %q; want vllm's --model %q", target.Model, got)
	}
	if vllm.ReadinessProbe == nil || vllm.ReadinessProbe.HTTPGet == nil || vllm.ReadinessProbe.HTTPGet.Path != target.Readiness.Path {
		t.Errorf("target readiness path = %q; want the path of vllm's readiness probe", target.Readiness.Path)
	}
}

// flagValue returns the value following name in args, or "".
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// knownEnvVars returns every variable config.FromEnv reads, from the env
// tags of config.Env and the structs it holds, plus config.APIKeyVar.
func knownEnvVars() map[string]bool {
	known := map[string]bool{config.APIKeyVar: true}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("env"), ","); name != "" && name != "-" {
				known[name] = true
			}
			if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == typ.PkgPath() {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[config.Env]())
	return known
}

func TestKnownEnvVars(t *testing.T) {
	known := knownEnvVars()
	// A sample of each struct, and the one that is read outside the tags.
	for _, name := range []string{"LLMPROBER_CONFIG", "LLMPROBER_LISTEN_ADDRESS", "LLMPROBER_TARGET_URL", "LLMPROBER_READINESS_PATH", "LLMPROBER_API_KEY"} {
		if !known[name] {
			t.Errorf("%s missing from the known variables", name)
		}
	}
	for _, name := range []string{"LLMPROBER_OBJECTIVE", "LLMPROBER_URL", "TargetVars"} {
		if known[name] {
			t.Errorf("%s wrongly known", name)
		}
	}
}

func TestSidecarServiceAndMonitors(t *testing.T) {
	ms := manifests(t)
	pod := &only[appsv1.Deployment](t, ms).Spec.Template
	svc := only[corev1.Service](t, ms)
	if !matches(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, pod.Labels) {
		t.Errorf("Service selector %v does not select the pod labels %v", svc.Spec.Selector, pod.Labels)
	}
	var svcPorts []string
	for _, p := range svc.Spec.Ports {
		svcPorts = append(svcPorts, p.Name)
		if !slices.Contains(podPortNames(&pod.Spec), p.TargetPort.String()) {
			t.Errorf("Service port %s targets %s, which no container port is called", p.Name, p.TargetPort.String())
		}
	}

	sm := only[monitoringv1.ServiceMonitor](t, ms)
	if !matches(t, &sm.Spec.Selector, svc.Labels) {
		t.Errorf("ServiceMonitor selector %v does not select the Service labels %v", sm.Spec.Selector, svc.Labels)
	}
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor endpoints = %+v; want one, port metrics, path /metrics", sm.Spec.Endpoints)
	} else if !slices.Contains(svcPorts, "metrics") {
		t.Errorf("ServiceMonitor scrapes port metrics; the Service has %v", svcPorts)
	}

	checkJobRelabeled(t, "ServiceMonitor", sm.Spec.Endpoints[0].RelabelConfigs)

	pm := only[monitoringv1.PodMonitor](t, ms)
	if !matches(t, &pm.Spec.Selector, pod.Labels) {
		t.Errorf("PodMonitor selector %v does not select the pod labels %v", pm.Spec.Selector, pod.Labels)
	}
	eps := pm.Spec.PodMetricsEndpoints
	if len(eps) != 1 || eps[0].Port == nil || *eps[0].Port != "metrics" || eps[0].Path != "/metrics" {
		var got []string
		for _, ep := range eps {
			if ep.Port == nil {
				got = append(got, "(no port) "+ep.Path)
				continue
			}
			got = append(got, *ep.Port+" "+ep.Path)
		}
		t.Errorf("PodMonitor endpoints (port path) = %q; want one, port metrics, path /metrics", got)
	} else if containerPort(container(t, &pod.Spec, "llmprober"), "metrics") == 0 {
		t.Error("PodMonitor scrapes port metrics; the llmprober container has none")
	}
	checkJobRelabeled(t, "PodMonitor", eps[0].RelabelConfigs)
}

// checkJobRelabeled checks that a monitor sets job to the job the bundled
// rules watch (LLMProberDown).
func checkJobRelabeled(t *testing.T, monitor string, rcs []monitoringv1.RelabelConfig) {
	t.Helper()
	want := slo.DefaultRuleOptions().Job
	ok := slices.ContainsFunc(rcs, func(rc monitoringv1.RelabelConfig) bool {
		return rc.TargetLabel == "job" && rc.Replacement != nil && *rc.Replacement == want && strings.EqualFold(rc.Action, "replace")
	})
	if !ok {
		t.Errorf("%s relabelings %+v do not set job to %q, the job of the bundled rules", monitor, rcs, want)
	}
}

func TestPrometheusRuleHasTheAlerts(t *testing.T) {
	pr := only[monitoringv1.PrometheusRule](t, manifests(t))
	var alerts []string
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts = append(alerts, r.Alert)
			}
		}
	}
	for _, want := range []string{"LLMProberSLOBurnRatePage", "LLMProberSLOBurnRateTicket", "LLMProberTargetFailing", "LLMProberNoSuccessfulProbe", "LLMProberBehindSchedule", "LLMProberProbesDropped"} {
		if !slices.Contains(alerts, want) {
			t.Errorf("PrometheusRule lacks alert %s (has %v)", want, alerts)
		}
	}
	if pr.Name != "llmprober" {
		t.Errorf("PrometheusRule name = %q; want llmprober", pr.Name)
	}
}
