package exporter

import (
	"errors"
	"fmt"
	"net/http"

	"go.opentelemetry.io/otel/metric"

	"github.com/llmprober/llmprober/slo/window"
)

// Windows exports the rolling windows of every target: observable gauges
// read from the stores' cached snapshots (exported to Prometheus and OTLP
// alike), the JSON status API (Register) and the landing page's window
// tables (ServerOptions.Windows).
type Windows struct {
	observer *Observer
	targets  []*windowTarget
	byName   map[string]*windowTarget
	inst     *windowInstruments
	gauges   WindowGauges
	reg      metric.Registration
	// heavy and limits are the server's, set by Register.
	heavy  inFlight
	limits ServerLimits
}

// windowTarget is one target's store and the attribute sets of its gauges.
type windowTarget struct {
	store   *window.Store
	windows []*windowAttrs
}

// NewWindows exports stores, one per target with distinct target names,
// as the gauges that m's Options.WindowGauges selects. With m nil no gauge
// is created (the API and landing page still work); observer, when not
// nil, supplies each target's model, API and start-up state to the API,
// and its kind (streamed, schedule, realtime), which decides the duration
// metrics exported: without it every one may be. Close it before creating
// another on the same Metrics.
func NewWindows(m *Metrics, observer *Observer, stores []*window.Store) (*Windows, error) {
	w := &Windows{observer: observer, byName: map[string]*windowTarget{}, gauges: AllWindowGauges()}
	if m != nil {
		w.gauges = m.gauges
	}
	for _, s := range stores {
		if s == nil {
			return nil, errors.New("could not export windows: nil store")
		}
		if w.byName[s.Target()] != nil {
			return nil, fmt.Errorf("could not export windows: target %q: duplicate name", s.Target())
		}
		wt := &windowTarget{store: s}
		var objectives []string
		for _, o := range s.Objectives() {
			objectives = append(objectives, o.Name)
		}
		seconds := windowMetrics(observer.target(s.Target()))
		for _, length := range s.Windows() {
			wt.windows = append(wt.windows, newWindowAttrs(s.Target(), length, seconds, w.gauges.Levels, objectives))
		}
		w.targets = append(w.targets, wt)
		w.byName[s.Target()] = wt
	}
	if m == nil {
		return w, nil
	}
	inst, err := newWindowInstruments(m.meter)
	if err != nil {
		return nil, err
	}
	w.inst = inst
	if w.reg, err = m.meter.RegisterCallback(w.observe, inst.all()...); err != nil {
		return nil, fmt.Errorf("could not register window gauge callback: %w", err)
	}
	return w, nil
}

// Close stops reporting the window gauges.
func (w *Windows) Close() error {
	if w.reg == nil {
		return nil
	}
	if err := w.reg.Unregister(); err != nil {
		return fmt.Errorf("could not unregister window gauge callback: %w", err)
	}
	return nil
}

// Register adds the JSON status API to s: GET (and HEAD) /api/v1/targets
// and /api/v1/targets/{name}/windows/{window}. Another method on those
// paths answers 405 with "Allow: GET, HEAD", any other path under /api/v1/
// 404, both with a JSON error. Requests with records=true share s's
// Limits.MaxRecordsRequests; call Register once.
func (w *Windows) Register(s *Server) {
	w.heavy, w.limits = s.records, s.opts.Limits
	for path, f := range map[string]func(apiRequest) (any, *apiError){
		"/api/v1/targets":                         w.listTargets,
		"/api/v1/targets/{name}/windows/{window}": w.getWindow,
	} {
		s.Handle("GET "+path, w.apiHandler(f))
		s.Handle(path, http.HandlerFunc(w.methodNotAllowed))
	}
	s.Handle("/api/v1/", w.apiHandler(func(r apiRequest) (any, *apiError) {
		return nil, &apiError{status: http.StatusNotFound, msg: "unknown API path " + r.req.URL.Path}
	}))
}
