package config

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestDistributionUnmarshal(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    Distribution
		wantErr string
	}{
		{"fixed", "d: 128", Distribution{Mean: 128, Min: 128, Max: 128}, ""},
		{"mapping", "d: {mean: 100, stdev: 12.5, min: 10, max: 300}", Distribution{Mean: 100, Stdev: 12.5, Min: 10, Max: 300}, ""},
		{"mapping without bounds", "d: {mean: 50, stdev: 5}", Distribution{Mean: 50, Stdev: 5}, ""},
		{"alias", "a: &x 7\nd: *x", Distribution{Mean: 7, Min: 7, Max: 7}, ""},
		{"unknown key", "d: {mean: 1, sd: 2}", Distribution{}, `line 1: unknown field "sd" in a distribution (use mean, stdev, min, max)`},
		{"fraction", "d: 12.5", Distribution{}, "line 1: must be an integer or a mapping with mean, stdev, min and max"},
		{"string", "d: lots", Distribution{}, "line 1: must be an integer or a mapping with mean, stdev, min and max"},
		{"list", "d: [1, 2]", Distribution{}, "line 1: must be an integer or a mapping with mean, stdev, min and max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v struct {
				A int          `yaml:"a"`
				D Distribution `yaml:"d"`
			}
			err := yaml.Unmarshal([]byte(tt.yaml), &v)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if v.D != tt.want {
				t.Errorf("got %+v, want %+v", v.D, tt.want)
			}
		})
	}
}

func TestDistributionDefaults(t *testing.T) {
	never := func(string) bool { return false }
	tests := []struct {
		name string
		in   Distribution
		want Distribution
	}{
		{"unset takes the fallback", Distribution{}, Fixed(64)},
		{"fixed stays", Fixed(10), Fixed(10)},
		// min → 1, max → ⌈4·10.2⌉ = ⌈40.8⌉ = 41.
		{"bounds from the mean", Distribution{Mean: 10.2, Stdev: 3}, Distribution{Mean: 10.2, Stdev: 3, Min: 1, Max: 41}},
		{"given bounds stay", Distribution{Mean: 10, Stdev: 3, Min: 5, Max: 12}, Distribution{Mean: 10, Stdev: 3, Min: 5, Max: 12}},
		// ⌈4·300000⌉ = 1200000 is over LimitTokens: max stops at 1048576.
		{"max capped at the limit", Distribution{Mean: 300000, Stdev: 10}, Distribution{Mean: 300000, Stdev: 10, Min: 1, Max: LimitTokens}},
		// A mean over the limit is reported by validate; max gets no default.
		{"mean over the limit", Distribution{Mean: LimitTokens + 1}, Distribution{Mean: LimitTokens + 1, Min: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.in
			d.applyDefaults(64, "d", never)
			if d != tt.want {
				t.Errorf("got %+v, want %+v", d, tt.want)
			}
		})
	}
}

func TestDistributionUnmarshalKeepsDecodedValues(t *testing.T) {
	// Beside an unknown key, the known ones are decoded, so that their
	// problems can be reported too.
	var v struct {
		D Distribution `yaml:"d"`
	}
	err := yaml.Unmarshal([]byte("d: {mean: 10, sd: 2, max: 5}"), &v)
	if err == nil {
		t.Fatal("Unmarshal accepted an unknown key")
	}
	if want := (Distribution{Mean: 10, Max: 5}); v.D != want {
		t.Errorf("got %+v, want %+v", v.D, want)
	}
}

func TestDistributionSampleFixed(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name string
		d    Distribution
		want int
	}{
		{"integer", Fixed(128), 128},
		{"rounded mean", Distribution{Mean: 10.5, Min: 1, Max: 20}, 11},
		{"clamped to max", Distribution{Mean: 50, Min: 1, Max: 40}, 40},
		{"clamped to min", Distribution{Mean: 2, Min: 5, Max: 40}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 100 {
				if got := tt.d.Sample(r); got != tt.want {
					t.Fatalf("Sample = %d, want %d", got, tt.want)
				}
			}
		})
	}
}

func TestDistributionSampleNormal(t *testing.T) {
	tests := []struct {
		name string
		d    Distribution
	}{
		// Bounds 30 standard deviations away: clamping never matters.
		{"wide bounds", Distribution{Mean: 500, Stdev: 10, Min: 200, Max: 800}},
		// Bounds ±0.2σ around the mean, symmetric: most samples clamp, to
		// both sides equally, so the mean is still 100.
		{"narrow symmetric bounds", Distribution{Mean: 100, Stdev: 50, Min: 90, Max: 110}},
	}
	const n = 20000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 11))
			var sum float64
			hitMin, hitMax := false, false
			for range n {
				v := tt.d.Sample(r)
				if v < tt.d.Min || v > tt.d.Max {
					t.Fatalf("Sample = %d outside [%d, %d]", v, tt.d.Min, tt.d.Max)
				}
				hitMin = hitMin || v == tt.d.Min
				hitMax = hitMax || v == tt.d.Max
				sum += float64(v)
			}
			// The standard error of the mean is at most σ/√n (clamping only
			// shrinks the spread): 10/√20000 ≈ 0.071 and 50/√20000 ≈ 0.354.
			// Allow 5 standard errors plus 0.5 for rounding to integers.
			bound := 5*tt.d.Stdev/math.Sqrt(n) + 0.5
			if mean := sum / n; math.Abs(mean-tt.d.Mean) > bound {
				t.Errorf("sample mean = %.3f, want %.1f ± %.3f", mean, tt.d.Mean, bound)
			}
			if tt.d.Max-tt.d.Min < 30 && (!hitMin || !hitMax) {
				t.Errorf("narrow bounds not both reached: min %v max %v", hitMin, hitMax)
			}
		})
	}
}
