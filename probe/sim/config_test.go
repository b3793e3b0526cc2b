package sim

import (
	"strings"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{"zero value", Config{}, ""},
		{"demo", DemoConfig(), ""},
		{"negative ttft", Config{TTFT: Latency{Mean: -time.Millisecond}}, "ttft.mean"},
		{"negative itl jitter", Config{ITL: Latency{Jitter: -1}}, "itl.jitter"},
		{"negative ready", Config{ReadyAfter: -time.Second}, "ready_after"},
		{"negative reasoning", Config{ReasoningTokens: -1}, "reasoning_tokens"},
		{"unknown fault", Config{Faults: map[Fault]float64{"meteor": 0.1}}, `unknown fault "meteor"`},
		{"probability above 1", Config{Faults: map[Fault]float64{FaultStall: 1.5}}, "outside [0, 1]"},
		{"negative probability", Config{Faults: map[Fault]float64{FaultStall: -0.1}}, "outside [0, 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := Start(Config{OutputTokens: -1}); err == nil {
		t.Error("Start accepted a negative output length")
	}
}

func TestDefaults(t *testing.T) {
	got := Config{
		TTFT:            Latency{Mean: -time.Second},
		OutputTokens:    100,
		MaxOutputTokens: 50,
		Faults:          map[Fault]float64{FaultHTML: 2, FaultReset: -1, "meteor": 0.5},
	}.withDefaults()
	// Output 100 capped at 50; probability 2 clamped to 1; the others dropped.
	if got.TTFT.Mean != 0 || got.OutputTokens != 50 || got.MaxOutputTokens != 50 || got.Model != DefaultModel ||
		len(got.Faults) != 1 || got.Faults[FaultHTML] != 1 {
		t.Errorf("withDefaults() = %+v", got)
	}
	zero := Config{}.withDefaults()
	if zero.OutputTokens != DefaultOutputTokens || zero.MaxOutputTokens != DefaultMaxOutputTokens {
		t.Errorf("zero config defaults %+v", zero)
	}
}

func TestDemoConfigFaults(t *testing.T) {
	// Every fault at 0.5%: 8 kinds, 4% of requests in all.
	sum := 0.0
	for _, f := range Faults() {
		p := DemoConfig().Faults[f]
		if p <= 0 {
			t.Errorf("demo never injects %s", f)
		}
		sum += p
	}
	if sum < 0.039 || sum > 0.041 {
		t.Errorf("demo fault probability %v, want 0.04", sum)
	}
}

func TestPickFault(t *testing.T) {
	probs := map[Fault]float64{FaultHTTP500: 0.1, FaultStall: 0.2, FaultHTML: 0}
	tests := []struct {
		name string
		u    float64
		want Fault
	}{
		{"inside the first", 0.05, FaultHTTP500},
		// Cumulative: http_500 [0, 0.1), stall [0.1, 0.3) in Faults() order.
		{"at the first boundary", 0.1, FaultStall},
		{"inside the second", 0.29, FaultStall},
		// 0.1 + 0.2 is 0.30000000000000004 in floating point: step past it.
		{"past all", 0.31, ""},
		{"top", 0.999, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pickFault(tt.u, probs); got != tt.want {
				t.Errorf("pickFault(%v) = %q, want %q", tt.u, got, tt.want)
			}
		})
	}
}

func TestFaultAfterTokens(t *testing.T) {
	// min(3, n/2).
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 5: 2, 6: 3, 100: 3} {
		if got := faultAfterTokens(n); got != want {
			t.Errorf("faultAfterTokens(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestFaultsListIsACopy(t *testing.T) {
	f := Faults()
	f[0] = "changed"
	if Faults()[0] != FaultHTTP500 || len(f) != 8 {
		t.Errorf("Faults() shares its slice or has %d entries", len(f))
	}
}
