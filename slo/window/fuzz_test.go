package window

import (
	"testing"
	"time"
)

// Window names come from URLs: ParseName accepts any Go duration and
// nothing else, and Name gives back a name that parses to the same length.
func FuzzParseName(f *testing.F) {
	for _, s := range []string{"1m", "60s", "1h30m", "500ms", "", "1 minute", "-5m", "9999999h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseName(s)
		if _, perr := time.ParseDuration(s); (err == nil) != (perr == nil) {
			t.Fatalf("ParseName(%q) error %v, time.ParseDuration error %v", s, err, perr)
		}
		if err != nil {
			return
		}
		if back, err := ParseName(Name(d)); err != nil || back != d {
			t.Fatalf("Name(%v) = %q parses to %v, %v", d, Name(d), back, err)
		}
	})
}
