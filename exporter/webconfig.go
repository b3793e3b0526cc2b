package exporter

import (
	"fmt"
	"path/filepath"

	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v3"

	"github.com/llmprober/llmprober/probe/localfile"
)

// webConfigFiles are the files a web configuration names, as the
// exporter-toolkit reads them.
type webConfigFiles struct {
	TLS struct {
		CertFile     string `yaml:"cert_file"`
		KeyFile      string `yaml:"key_file"`
		ClientCAFile string `yaml:"client_ca_file"`
	} `yaml:"tls_server_config"`
}

// CheckWebConfig checks an exporter-toolkit web configuration file before
// the toolkit, which reads files without bounds, is given it: the file is
// a regular file of at most localfile.WebConfig.MaxBytes, and so are the
// certificate, key and client CA files it names (localfile.TLS, relative
// to its directory); then the toolkit validates it.
func CheckWebConfig(path string) error {
	data, err := localfile.ReadFile(path, localfile.WebConfig)
	if err != nil {
		return err
	}
	var files webConfigFiles
	// A document that does not decode is left to the toolkit to explain.
	if yaml.Unmarshal(data, &files) == nil {
		for _, f := range []struct{ key, name string }{
			{"cert_file", files.TLS.CertFile}, {"key_file", files.TLS.KeyFile}, {"client_ca_file", files.TLS.ClientCAFile},
		} {
			if err := checkTLSFile(filepath.Dir(path), f.name); err != nil {
				return fmt.Errorf("tls_server_config.%s: %w", f.key, err)
			}
		}
	}
	return web.Validate(path)
}

// checkTLSFile checks the TLS file name, relative to dir; "" is no file.
func checkTLSFile(dir, name string) error {
	if name == "" {
		return nil
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	_, err := localfile.ReadFile(name, localfile.TLS)
	return err
}
