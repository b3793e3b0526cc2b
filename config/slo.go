package config

import (
	"time"

	"github.com/llmprober/llmprober/slo"
)

// SLO converts a validated objective set (defaults applied) to the SLO
// domain's: its thresholds in the order of slo.Quantities, its attainment
// and period.
func (o *Objective) SLO() slo.Objective {
	out := slo.Objective{Name: o.Name, Period: time.Duration(o.Period)}
	if o.Attainment != nil {
		out.Attainment = *o.Attainment
	}
	th := o.Thresholds()
	for _, q := range slo.Quantities {
		if d, ok := th[string(q)]; ok {
			out.Thresholds = append(out.Thresholds, slo.Threshold{Quantity: q, Max: d})
		}
	}
	return out
}

// SLOObjectives converts every objective set of t, in order.
func (t *Target) SLOObjectives() []slo.Objective {
	out := make([]slo.Objective, 0, len(t.Objectives))
	for i := range t.Objectives {
		out = append(out, t.Objectives[i].SLO())
	}
	return out
}
