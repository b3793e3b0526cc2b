package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

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
		f.Add(data)
	}
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
