package exporter

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/prometheus/otlptranslator"
)

// sdkCardinalityLimit is the OpenTelemetry SDK's default limit of
// attribute sets per instrument, the least limit SeriesBudget sets.
const sdkCardinalityLimit = 2000

// cardinalityHeadroom multiplies the largest instrument's attribute sets
// to give the SDK limit.
const cardinalityHeadroom = 2

// InstrumentBudget is one instrument's worst case for a configuration:
// every series that can ever carry data.
type InstrumentBudget struct {
	// Name is the Prometheus metric family name.
	Name string
	// Sets is the number of attribute sets (OpenTelemetry data points),
	// what the SDK's cardinality limit counts.
	Sets int
	// Series is the number of Prometheus series: Sets for counters and
	// gauges, Sets × (boundaries + 3) for histograms (one per bucket
	// boundary, +Inf, _sum and _count).
	Series int
}

// Budget is the series a configuration exports at most, by instrument and
// by target. The Go and process collectors are not counted.
type Budget struct {
	// Instruments are every instrument that can have a series, by name.
	Instruments []InstrumentBudget
	// Targets are the series of each target, in the order given.
	Targets []int
	// Shared are the series that belong to no target: build info and,
	// with OTLP, the export counter.
	Shared int
	// Total is every series: the sum over Instruments (and over Targets
	// plus Shared).
	Total int
	// ThresholdBoundaries are the bucket boundaries that objective
	// thresholds add to the histograms beyond their defaults, summed over
	// the histograms, and ThresholdSeries the series they cost, part of
	// Total. OpenTelemetry fixes boundaries per instrument, not per
	// attribute set: a threshold of one target is a boundary of its
	// histogram for every target.
	ThresholdBoundaries, ThresholdSeries int
}

// Largest returns the instrument with the most attribute sets (the first
// by name among equals); the zero value without instruments.
func (b *Budget) Largest() InstrumentBudget {
	if len(b.Instruments) == 0 {
		return InstrumentBudget{}
	}
	return slices.MaxFunc(b.Instruments, func(x, y InstrumentBudget) int {
		return cmp.Or(cmp.Compare(x.Sets, y.Sets), cmp.Compare(y.Name, x.Name))
	})
}

// CardinalityLimit is the SDK limit (Options.CardinalityLimit) that gives
// every instrument at least twice its worst case: twice the largest
// instrument's attribute sets, and never below the SDK's default of 2000.
func (b *Budget) CardinalityLimit() int {
	return max(sdkCardinalityLimit, cardinalityHeadroom*b.Largest().Sets)
}

// budgetItem is one instrument as the budget counts it: its Prometheus
// name, its series per attribute set, and its attribute sets per target.
type budgetItem struct {
	name      string
	perSet    int
	setsOf    func(t *Target) int
	sharedSet int
	// added is the bucket boundaries of a histogram beyond its defaults.
	added int
}

// SeriesBudget counts the series that targets, each with windows rolling
// windows, export at most under opts (its ExtraBoundaries, WindowGauges
// and the OTLP selection of Getenv): each histogram's buckets, each
// counter series created at 0, and each series that can appear later
// (every error type, every HTTP phase, every gauge the windows can
// report). It fails on opts that NewMetrics would reject.
func SeriesBudget(targets []Target, windows int, opts Options) (Budget, error) {
	opts = opts.withDefaults()
	if err := validateExtraBoundaries(opts.ExtraBoundaries); err != nil {
		return Budget{}, fmt.Errorf("could not configure histograms: %w", err)
	}
	otlp, err := otlpWanted(opts.Getenv)
	if err != nil {
		return Budget{}, err
	}
	gauges := AllWindowGauges()
	if opts.WindowGauges != nil {
		gauges = *opts.WindowGauges
	}
	items := instrumentItems(opts.ExtraBoundaries, otlp)
	items = append(items, windowItems(&gauges, windows)...)
	return countBudget(items, targets), nil
}

// countBudget adds up items over targets.
func countBudget(items []budgetItem, targets []Target) Budget {
	b := Budget{Targets: make([]int, len(targets))}
	for _, it := range items {
		sets := it.sharedSet
		for i := range targets {
			n := it.setsOf(&targets[i])
			sets += n
			b.Targets[i] += n * it.perSet
		}
		if sets == 0 {
			continue
		}
		b.Shared += it.sharedSet * it.perSet
		b.Instruments = append(b.Instruments, InstrumentBudget{Name: it.name, Sets: sets, Series: sets * it.perSet})
		b.Total += sets * it.perSet
		b.ThresholdBoundaries += it.added
		b.ThresholdSeries += sets * it.added
	}
	slices.SortFunc(b.Instruments, func(x, y InstrumentBudget) int { return cmp.Compare(x.Name, y.Name) })
	return b
}

// promName is the Prometheus name the exporter gives an instrument.
func promName(name, unit string, typ otlptranslator.MetricType) string {
	namer := otlptranslator.NewMetricNamer("", otlptranslator.UnderscoreEscapingWithSuffixes)
	n, err := namer.Build(otlptranslator.Metric{Name: name, Unit: unit, Type: typ})
	if err != nil {
		return name
	}
	return n
}

// none counts no attribute set of any target.
func none(*Target) int { return 0 }

// instrumentItems are the histograms, counters and gauges of the Observer
// and the process-wide instruments.
func instrumentItems(extra map[string][]float64, otlp bool) []budgetItem {
	var out []budgetItem
	for _, s := range histogramSpecs {
		merged := len(mergeBoundaries(s.Boundaries, extra[s.Name]))
		out = append(out, budgetItem{name: promName(s.Name, s.Unit, otlptranslator.MetricTypeHistogram), perSet: merged + 3,
			setsOf: s.Sets, added: merged - len(s.Boundaries)})
	}
	for _, s := range []spec{specRequests, specScheduled, specDropped, specSLOEvaluated, specSLOConforming, specSLONonConform} {
		out = append(out, budgetItem{name: promName(s.Name, s.Unit, otlptranslator.MetricTypeMonotonicCounter), perSet: 1, setsOf: s.Sets})
	}
	for _, s := range []spec{specInFlight, specTargetState, specStartupWait, specTargetInfo, specSLOObjective, specSLOPeriod} {
		out = append(out, budgetItem{name: promName(s.Name, s.Unit, otlptranslator.MetricTypeGauge), perSet: 1, setsOf: s.Sets})
	}
	out = append(out, budgetItem{name: promName(specBuildInfo.Name, "", otlptranslator.MetricTypeGauge), perSet: 1, setsOf: none, sharedSet: 1},
		budgetItem{name: promName(specCollectionTimestamp.Name, specCollectionTimestamp.Unit, otlptranslator.MetricTypeGauge),
			perSet: 1, setsOf: none, sharedSet: 1})
	if otlp {
		out = append(out, budgetItem{name: promName(InstrumentOTLPExports, "{export}", otlptranslator.MetricTypeMonotonicCounter),
			perSet: 1, setsOf: none, sharedSet: len(exportOutcome)})
	}
	return out
}

// windowGauge is one window gauge as the budget counts it: its
// OpenTelemetry name and unit, and its attribute sets per window of
// target t under g.
type windowGauge struct {
	name, unit string
	sets       func(t *Target, g *WindowGauges) int
}

// windowGaugeTable lists every window gauge with its attribute sets per
// window. Interval gauges of token-weighted metrics (ITL, TPOT) never
// exist; a mean interval needs 2 values, a percentile's enough of them,
// but both can.
var windowGaugeTable = func() []windowGauge {
	one := func(*Target, *WindowGauges) int { return 1 }
	rates := func(_ *Target, g *WindowGauges) int { return b2i(g.Rates) * len(windowStatuses) }
	levels := func(g *WindowGauges) int { return len(g.Levels) * b2i(g.Percentiles) }
	bounded := func(t *Target) int {
		n := 0
		for _, m := range windowMetrics(t) {
			n += b2i(!m.Weighted())
		}
		return n
	}
	tokLevels := func(_ *Target, g *WindowGauges) int { return b2i(g.Tokens) * len(tokenMetrics) * len(g.Levels) }
	tokMeans := func(_ *Target, g *WindowGauges) int { return b2i(g.Tokens) * len(tokenMetrics) }
	slo := func(t *Target, g *WindowGauges) int { return b2i(g.SLO) * len(t.Objectives) }
	iv := func(f func(*Target, *WindowGauges) int) func(*Target, *WindowGauges) int {
		return func(t *Target, g *WindowGauges) int { return b2i(g.Intervals) * f(t, g) }
	}
	pct := func(t *Target, g *WindowGauges) int { return len(windowMetrics(t)) * levels(g) }
	pctCI := func(t *Target, g *WindowGauges) int { return bounded(t) * levels(g) }
	mean := func(t *Target, g *WindowGauges) int { return len(windowMetrics(t)) * b2i(g.Means) }
	meanCI := func(t *Target, g *WindowGauges) int { return bounded(t) * b2i(g.Means) }
	return []windowGauge{
		{InstrumentWindowLength, "s", one},
		{InstrumentWindowApproximate, "", one},
		{InstrumentWindowFinishedRequests, "{request}", rates},
		{InstrumentWindowRequestRate, "{request}/s", rates},
		{InstrumentWindowOutputTokenRate, "{token}/s", rates},
		{InstrumentWindowTotalTokenRate, "{token}/s", rates},
		{InstrumentWindowConcurrency, "{request}", func(_ *Target, g *WindowGauges) int { return b2i(g.Rates) }},
		{InstrumentWindowPercentile, "s", pct},
		{InstrumentWindowPercentile + "_ci_lower", "s", iv(pctCI)},
		{InstrumentWindowPercentile + "_ci_upper", "s", iv(pctCI)},
		{InstrumentWindowMean, "s", mean},
		{InstrumentWindowMean + "_ci_lower", "s", iv(meanCI)},
		{InstrumentWindowMean + "_ci_upper", "s", iv(meanCI)},
		{InstrumentWindowTokensPercentile, "{token}", tokLevels},
		{InstrumentWindowTokensPercentile + "_ci_lower", "{token}", iv(tokLevels)},
		{InstrumentWindowTokensPercentile + "_ci_upper", "{token}", iv(tokLevels)},
		{InstrumentWindowTokensMean, "{token}", tokMeans},
		{InstrumentWindowTokensMean + "_ci_lower", "{token}", iv(tokMeans)},
		{InstrumentWindowTokensMean + "_ci_upper", "{token}", iv(tokMeans)},
		{InstrumentWindowSLOEvaluated, "{request}", slo},
		{InstrumentWindowSLOAttainment, "", slo},
		{InstrumentWindowSLOAttainment + "_ci_lower", "", iv(slo)},
		{InstrumentWindowSLOAttainment + "_ci_upper", "", iv(slo)},
		{InstrumentWindowGoodput, "{request}/s", slo},
		{InstrumentWindowTokenGoodput, "{token}/s", slo},
	}
}()

// windowItems are the window gauges of windows windows per target under g.
func windowItems(g *WindowGauges, windows int) []budgetItem {
	out := make([]budgetItem, 0, len(windowGaugeTable))
	for _, w := range windowGaugeTable {
		out = append(out, budgetItem{name: promName(w.name, w.unit, otlptranslator.MetricTypeGauge), perSet: 1,
			setsOf: func(t *Target) int { return windows * w.sets(t, g) }})
	}
	return out
}
