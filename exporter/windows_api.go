package exporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/llmprober/llmprober/slo/window"
)

// apiRequest is a parsed API request.
type apiRequest struct {
	req     *http.Request
	records bool
}

// apiError is an API failure: its status and message.
type apiError struct {
	status int
	msg    string
}

// apiHandler serves f's result as JSON, or its error as {"error": "..."}.
func (w *Windows) apiHandler(f func(apiRequest) (any, *apiError)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, aerr := w.serveAPI(r, f)
		writeAPI(rw, body, aerr)
	})
}

// methodNotAllowed answers 405 with "Allow: GET, HEAD" and a JSON error.
func methodNotAllowed(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Allow", "GET, HEAD")
	writeAPI(rw, nil, &apiError{status: http.StatusMethodNotAllowed,
		msg: "method " + r.Method + " not allowed on " + r.URL.Path})
}

// writeAPI writes body as JSON, or aerr as {"error": "..."} when not nil.
func writeAPI(rw http.ResponseWriter, body any, aerr *apiError) {
	if aerr != nil {
		body = map[string]string{"error": aerr.msg}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(body); err != nil {
		aerr = &apiError{status: http.StatusInternalServerError}
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\": %q}\n", "could not encode response: "+err.Error())
	}
	rw.Header().Set("Content-Type", "application/json; charset=utf-8")
	rw.Header().Set("Cache-Control", "no-store")
	if aerr != nil {
		rw.WriteHeader(aerr.status)
	}
	_, _ = rw.Write(buf.Bytes())
}

// serveAPI parses the query and calls f.
func (w *Windows) serveAPI(r *http.Request, f func(apiRequest) (any, *apiError)) (any, *apiError) {
	ar := apiRequest{req: r}
	if v := r.URL.Query().Get("records"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("records=%q: want true or false", v)}
		}
		ar.records = b
	}
	return f(ar)
}

// listTargets serves GET /api/v1/targets.
func (w *Windows) listTargets(r apiRequest) (any, *apiError) {
	out := apiTargets{Targets: []apiTarget{}}
	states := w.states()
	for _, wt := range w.targets {
		t := apiTarget{Name: wt.store.Target(), Windows: []apiWindow{}}
		if st, ok := states[t.Name]; ok {
			t.Model, t.API, t.Stream, t.State = st.Target.Model, st.Target.API, st.Target.Stream, string(st.State)
			t.Probes = newAPIProbes(st.Probes)
		}
		if start, ok := wt.store.MeasureStart(); ok {
			t.MeasureStart = timeJSON(start)
		}
		for _, snap := range wt.store.CurrentAll() {
			t.Windows = append(t.Windows, newAPIWindow(snap, false, r.records, t.API == apiRealtime))
		}
		out.Targets = append(out.Targets, t)
	}
	if len(w.targets) > 0 {
		out.Confidence = confidenceJSON(w.targets[0].store.Confidence())
	}
	return out, nil
}

// getWindow serves GET /api/v1/targets/{name}/windows/{window}.
func (w *Windows) getWindow(r apiRequest) (any, *apiError) {
	name, wname := r.req.PathValue("name"), r.req.PathValue("window")
	wt := w.byName[name]
	if wt == nil {
		return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("unknown target %q", name)}
	}
	length, err := window.ParseName(wname)
	if err == nil {
		if snap := wt.store.Current(length); snap != nil {
			return newAPIWindow(snap, true, r.records, w.states()[name].Target.API == apiRealtime), nil
		}
	}
	return nil, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("unknown window %q of target %q (configured: %s)",
		wname, name, windowNames(wt.store.Windows()))}
}

// states returns each target's status by name; empty without an Observer.
func (w *Windows) states() map[string]TargetStatus {
	out := map[string]TargetStatus{}
	if w.observer == nil {
		return out
	}
	for _, st := range w.observer.Status() {
		out[st.Target.Name] = st
	}
	return out
}

// windowNames lists window names separated by commas.
func windowNames(ws []time.Duration) string {
	var b bytes.Buffer
	for i, w := range ws {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(window.Name(w))
	}
	return b.String()
}
