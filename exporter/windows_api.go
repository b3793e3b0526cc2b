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
	req *http.Request
	// records streams the records of the windows the document holds; nil
	// without records=true.
	records *recordStreams
}

// apiError is an API failure: its status and message.
type apiError struct {
	status int
	msg    string
}

// apiHandler serves f's result as JSON, or its error as {"error": "..."}.
// A request with records=true takes one of the server's records slots for
// as long as its answer streams, and is answered 429 with Retry-After when
// none is free.
func (w *Windows) apiHandler(f func(apiRequest) (any, *apiError)) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		ar, aerr := parseAPI(r)
		if aerr != nil {
			writeAPI(rw, nil, aerr, nil, w.limits)
			return
		}
		if ar.records != nil {
			if !w.heavy.acquire() {
				tooMany(rw)
				writeAPI(rw, nil, &apiError{status: http.StatusTooManyRequests,
					msg: fmt.Sprintf("more than %d requests with records=true at once; retry later", cap(w.heavy))}, nil, w.limits)
				return
			}
			defer w.heavy.release()
		}
		body, aerr := f(ar)
		writeAPI(rw, body, aerr, ar.records, w.limits)
	})
}

// methodNotAllowed answers 405 with "Allow: GET, HEAD" and a JSON error.
func (w *Windows) methodNotAllowed(rw http.ResponseWriter, r *http.Request) {
	rw.Header().Set("Allow", "GET, HEAD")
	writeAPI(rw, nil, &apiError{status: http.StatusMethodNotAllowed,
		msg: "method " + r.Method + " not allowed on " + r.URL.Path}, nil, w.limits)
}

// writeAPI writes body as JSON, or aerr as {"error": "..."} when not nil;
// the records of rs, when body refers to any, are streamed under lim.
func writeAPI(rw http.ResponseWriter, body any, aerr *apiError, rs *recordStreams, lim ServerLimits) {
	if aerr != nil {
		body, rs = map[string]string{"error": aerr.msg}, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(body); err != nil {
		aerr, rs = &apiError{status: http.StatusInternalServerError}, nil
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\": %q}\n", "could not encode response: "+err.Error())
	}
	rw.Header().Set("Content-Type", "application/json; charset=utf-8")
	rw.Header().Set("Cache-Control", "no-store")
	if aerr != nil {
		rw.WriteHeader(aerr.status)
	}
	if rs == nil || len(rs.srcs) == 0 {
		_, _ = rw.Write(buf.Bytes())
		return
	}
	out := newStallWriter(rw, lim)
	if err := rs.write(out, buf.Bytes()); err != nil {
		// The status is sent: cut the response, so that the client
		// sees a broken one rather than a complete-looking document.
		panic(http.ErrAbortHandler)
	}
	if out.Flush() != nil {
		panic(http.ErrAbortHandler)
	}
}

// parseAPI parses the query.
func parseAPI(r *http.Request) (apiRequest, *apiError) {
	ar := apiRequest{req: r}
	if v := r.URL.Query().Get("records"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return ar, &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("records=%q: want true or false", v)}
		}
		if b {
			ar.records = newRecordStreams()
		}
	}
	return ar, nil
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
