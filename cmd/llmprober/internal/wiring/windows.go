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
	stores := make([]*window.Store, 0, len(cfg.Targets))
	for i := range cfg.Targets {
		s, err := NewWindowStore(cfg, &cfg.Targets[i], clk)
		if err != nil {
			return nil, err
		}
		stores = append(stores, s)
	}
	return stores, nil
}

// NewWindowStore returns the rolling-window store of t under cfg's window
// settings, reading clk.
func NewWindowStore(cfg *config.Config, t *config.Target, clk clock.Clock) (*window.Store, error) {
	s, err := window.NewStore(t.Name, window.Settings{
		Windows: cfg.Windows, Confidence: cfg.ConfidenceLevel(), Warmup: cfg.Warmup,
		SampleCap: cfg.WindowSampleCap, Clock: clk, Objectives: t.SLOObjectives(),
	})
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", t.Name, err)
	}
	return s, nil
}
