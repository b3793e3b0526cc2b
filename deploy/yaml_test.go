package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// document is one YAML document of a file under deploy/.
type document struct {
	file  string
	index int
	// value is the document decoded into maps, slices and scalars.
	value any
	// raw is the document alone, re-encoded, for typed decoding.
	raw []byte
}

// String names the document in failure messages: file and index.
func (d document) String() string { return fmt.Sprintf("%s (document %d)", d.file, d.index) }

// yamlFiles lists every .yml and .yaml file under dir, sorted.
func yamlFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".yml" || ext == ".yaml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("could not list %s: %v", dir, err)
	}
	return files
}

// parseDocuments decodes every document of a YAML stream strictly: a syntax
// error, a duplicate key or an empty document is an error naming the file
// and line.
func parseDocuments(file string, data []byte) ([]document, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []document
	for i := 0; ; i++ {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		var v any
		if err := node.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if v == nil {
			return nil, fmt.Errorf("%s:%d: empty document", file, node.Line)
		}
		raw, err := yaml.Marshal(&node)
		if err != nil {
			return nil, fmt.Errorf("%s: could not re-encode document %d: %w", file, i, err)
		}
		docs = append(docs, document{file: file, index: i, value: v, raw: raw})
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s: no YAML document", file)
	}
	return docs, nil
}

// readDocuments reads and parses file, failing the test on any problem.
func readDocuments(t *testing.T, file string) []document {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := parseDocuments(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// decodeKnown decodes data into v, rejecting keys v has no field for.
func decodeKnown(file string, data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

func TestEveryYAMLFileParses(t *testing.T) {
	files := yamlFiles(t, ".")
	// The committed rules, their tests, the Kubernetes example and the
	// compose stack must all be seen, or the walk is broken.
	for _, want := range []string{
		"llmprober-rules.yml", "llmprober-rules.test.yml", "llmprober-prometheusrule.yml",
		"kubernetes/vllm-llmprober.yml", "kubernetes/servicemonitor.yml", "kubernetes/podmonitor.yml",
		"compose/compose.yml", "compose/prometheus.yml", "compose/llmprober.yml",
		"compose/grafana/provisioning/datasources/prometheus.yml",
		"compose/grafana/provisioning/dashboards/llmprober.yml",
	} {
		if !containsPath(files, want) {
			t.Errorf("%s not found under deploy/ (found %v)", want, files)
		}
	}
	for _, f := range files {
		readDocuments(t, f)
	}
}

func TestParseDocumentsRejects(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"duplicate key", "a: 1\nb: 2\na: 3\n", `line 3: mapping key "a" already defined at line 1`},
		{"bad indentation", "a:\n  b: 1\n c: 2\n", "line 2: did not find expected key"},
		{"empty document", "a: 1\n---\n# nothing\n", "empty document"},
		{"tab indentation", "a:\n\tb: 1\n", "line 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseDocuments("x.yml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// containsPath reports whether files holds want, compared as clean paths.
func containsPath(files []string, want string) bool {
	for _, f := range files {
		if filepath.Clean(f) == filepath.Clean(want) {
			return true
		}
	}
	return false
}
