package wiring

import (
	"fmt"

	"github.com/llmprober/llmprober/config"
	"github.com/llmprober/llmprober/probe/clock"
	"github.com/llmprober/llmprober/slo/window"
)

// NewWindowStores returns one rolling-window store per configured target,
// in order, reading clk (the probers' clock), each reporting the attainment
// of its target's objective sets.
func NewWindowStores(cfg *config.Config, clk clock.Clock) ([]*window.Store, error) {
	settings := window.Settings{
		Windows: cfg.Windows, Confidence: cfg.ConfidenceLevel(), Warmup: cfg.Warmup,
		SampleCap: cfg.WindowSampleCap, Clock: clk,
	}
	stores := make([]*window.Store, 0, len(cfg.Targets))
	for i := range cfg.Targets {
		settings.Objectives = cfg.Targets[i].SLOObjectives()
		s, err := window.NewStore(cfg.Targets[i].Name, settings)
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", cfg.Targets[i].Name, err)
		}
		stores = append(stores, s)
	}
	return stores, nil
}
