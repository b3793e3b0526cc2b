package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// maxSeedBytes bounds the seeds FuzzParse takes from testdata: the fuzzer
// minimizes every new input it finds, and inputs grown from a 9 KB file
// (full.yml) kept it minimizing instead of exploring. compactSeed covers
// what full.yml does in a few hundred bytes.
const maxSeedBytes = 1024

// compactSeed is a valid configuration with every section set.
const compactSeed = `listen_address: 127.0.0.1:9477
windows: [1m, 5m]
confidence: 0.9
targets:
  - name: a
    base_url: http://127.0.0.1:8000/v1
    model: m
    api: completions
    stream: false
    timeout: 30s
    headers: {X-Team: t}
    auth: {api_key_env: KEY}
    readiness: {path: /health, timeout: 1s}
    workload: {prompt_tokens: {mean: 64, stdev: 8, min: 8, max: 128}, output_tokens: 16, seed: 3}
    schedule: {strategy: poisson, rate: 2, max_concurrency: 2, max_queue: 1}
    objectives: [{name: o, latency: 5s, attainment: 0.9, period: 7d}]
  - name: r
    base_url: http://127.0.0.1:8000/v1
    model: m
    backend: openai_websocket
    realtime: {audio_duration: 1s, chunk_duration: 100ms, pacing: fast}
    schedule: {strategy: concurrent, streams: 1}
`

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/*.yml")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= maxSeedBytes {
			f.Add(data)
		}
	}
	f.Add([]byte(compactSeed))
	f.Add([]byte("a: &a [*a, *a]\nb: &b [*a, *a]\ntargets: [*b]\n"))
	f.Add([]byte("targets:\n  - <<: [{name: x}, {model: y}]\n    base_url: http://h/v1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.yml")
		if err != nil {
			// Every problem is reported as Errors.
			var errs Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty Errors", err, err)
			}
			return
		}
		// A parsed configuration is valid and fully defaulted.
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed config does not validate: %v", err)
		}
		before := withoutSource(c)
		c.ApplyDefaults()
		if !reflect.DeepEqual(withoutSource(c), before) {
			t.Fatalf("ApplyDefaults changed a parsed config")
		}
	})
}

// TestCompactSeedIsValid: the compact seed exercises the valid path.
func TestCompactSeedIsValid(t *testing.T) {
	if _, err := Parse([]byte(compactSeed), "seed.yml"); err != nil {
		t.Fatalf("compact seed: %v", err)
	}
}
