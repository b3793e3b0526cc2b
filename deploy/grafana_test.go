package deploy

import (
	"encoding/json"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
)

// grafanaDatasources is a Grafana data source provisioning file.
type grafanaDatasources struct {
	APIVersion  int `yaml:"apiVersion"`
	Datasources []struct {
		Name      string         `yaml:"name"`
		UID       string         `yaml:"uid"`
		Type      string         `yaml:"type"`
		Access    string         `yaml:"access"`
		URL       string         `yaml:"url"`
		IsDefault bool           `yaml:"isDefault"`
		JSONData  map[string]any `yaml:"jsonData"`
	} `yaml:"datasources"`
}

// grafanaProviders is a Grafana dashboard provider provisioning file.
type grafanaProviders struct {
	APIVersion int `yaml:"apiVersion"`
	Providers  []struct {
		Name                  string `yaml:"name"`
		Folder                string `yaml:"folder"`
		Type                  string `yaml:"type"`
		DisableDeletion       bool   `yaml:"disableDeletion"`
		AllowUIUpdates        bool   `yaml:"allowUiUpdates"`
		UpdateIntervalSeconds int    `yaml:"updateIntervalSeconds"`
		Options               struct {
			Path string `yaml:"path"`
		} `yaml:"options"`
	} `yaml:"providers"`
}

// grafanaProvisioning is the provisioning directory Grafana reads.
const grafanaProvisioning = "/etc/grafana/provisioning"

// readProvisioning decodes the only file of the provisioning subdirectory
// sub, as the grafana service sees it, into v.
func readProvisioning(t *testing.T, grafana types.ServiceConfig, sub string, v any) {
	t.Helper()
	dir := mustHostPath(t, grafana, path.Join(grafanaProvisioning, sub))
	files := yamlFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("%s holds %v; want one provisioning file", dir, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeKnown(files[0], data, v); err != nil {
		t.Fatal(err)
	}
}

func TestComposeGrafanaDatasource(t *testing.T) {
	p := loadCompose(t)
	var ds grafanaDatasources
	readProvisioning(t, service(t, p, "grafana"), "datasources", &ds)
	if ds.APIVersion != 1 || len(ds.Datasources) != 1 {
		t.Fatalf("datasources = %+v; want apiVersion 1 and one data source", ds)
	}
	d := ds.Datasources[0]
	addr := "0.0.0.0:9090"
	if v, ok := flagArg([]string(service(t, p, "prometheus").Command), "--web.listen-address"); ok {
		addr = v
	}
	_, port, _ := net.SplitHostPort(addr)
	if want := "http://prometheus:" + port; d.Type != "prometheus" || d.URL != want || !d.IsDefault || d.Access != "proxy" {
		t.Errorf("data source = %+v; want the default, type prometheus, access proxy, url %s", d, want)
	}
	// The dashboards' $__rate_interval needs the scrape interval.
	pc, _ := composePrometheusConfig(t, service(t, p, "prometheus"))
	if got := d.JSONData["timeInterval"]; got != pc.Global.ScrapeInterval {
		t.Errorf("data source timeInterval = %v; want Prometheus's scrape_interval %q", got, pc.Global.ScrapeInterval)
	}
	for _, f := range dashboardFiles {
		checkDashboardDatasources(t, filepath.Join("..", f), d.UID)
	}
}

func TestComposeGrafanaDashboards(t *testing.T) {
	p := loadCompose(t)
	grafana := service(t, p, "grafana")
	var pv grafanaProviders
	readProvisioning(t, grafana, "dashboards", &pv)
	if pv.APIVersion != 1 || len(pv.Providers) != 1 || pv.Providers[0].Type != "file" {
		t.Fatalf("dashboard providers = %+v; want apiVersion 1 and one file provider", pv)
	}
	dir := pv.Providers[0].Options.Path
	for _, f := range dashboardFiles {
		want, err := filepath.Abs(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		if got := mustHostPath(t, grafana, path.Join(dir, path.Base(f))); got != want {
			t.Errorf("grafana sees %s at %s; want %s", got, path.Join(dir, path.Base(f)), want)
		}
	}
	home := grafana.Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
	if home == nil || path.Dir(*home) != dir {
		t.Errorf("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH = %v; want a dashboard under %s", home, dir)
	} else {
		mustHostPath(t, grafana, *home)
	}
}

// checkDashboardDatasources checks that every data source a dashboard
// names by uid is a template variable or the provisioned uid.
func checkDashboardDatasources(t *testing.T, file, uid string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var dash any
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, ref := range datasourceUIDs(dash) {
		if ref != uid && !strings.HasPrefix(ref, "$") {
			t.Errorf("%s uses data source uid %q; Grafana in the compose stack provisions %q", file, ref, uid)
		}
	}
}

// datasourceUIDs returns the uid of every "datasource" object in v.
func datasourceUIDs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if ds, ok := e.(map[string]any); ok && k == "datasource" {
				if uid, ok := ds["uid"].(string); ok {
					out = append(out, uid)
				}
			}
			out = append(out, datasourceUIDs(e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, datasourceUIDs(e)...)
		}
	}
	return out
}

func TestDatasourceUIDs(t *testing.T) {
	var v any
	doc := `{"panels": [{"datasource": {"type": "prometheus", "uid": "${datasource}"}, "targets": [{"datasource": {"uid": "abc"}}]}],
		"templating": {"list": [{"name": "datasource", "type": "datasource", "query": "prometheus"}]}}`
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	got := datasourceUIDs(v)
	slices.Sort(got)
	if want := []string{"${datasource}", "abc"}; !slices.Equal(got, want) {
		t.Errorf("datasourceUIDs = %v; want %v", got, want)
	}
}
