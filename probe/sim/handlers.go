package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// maxBody is the largest request body read, in bytes.
const maxBody = 8 << 20

// errorBody is the JSON error shape of OpenAI-compatible servers.
type errorBody struct {
	Error apiError `json:"error"`
}

type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    int    `json:"code"`
}

func errorJSON(code int, typ, msg string) []byte {
	b, err := json.Marshal(errorBody{Error: apiError{Message: msg, Type: typ, Code: code}})
	if err != nil {
		panic(fmt.Sprintf("could not marshal error: %v", err)) // plain strings always marshal
	}
	return b
}

// writeError answers code with a JSON error body.
func writeError(w http.ResponseWriter, code int, typ, msg string) {
	writeBody(w, code, "application/json", errorJSON(code, typ, msg))
}

func writeBody(w http.ResponseWriter, code int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	if _, err := w.Write(body); err != nil {
		slog.Debug("sim could not write body", "err", err)
	}
}

func handleNotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "not_found_error", "no route for "+r.Method+" "+r.URL.Path)
}

// allow answers 405 and returns false unless r uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method "+r.Method+" not allowed")
	return false
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	if !s.ready() {
		writeError(w, http.StatusServiceUnavailable, "service_unavailable", "model is loading")
		return
	}
	writeBody(w, http.StatusOK, "application/json", []byte(`{"status":"ok"}`))
}

type modelList struct {
	Object string  `json:"object"`
	Data   []model `json:"data"`
}

type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	if !s.ready() {
		writeError(w, http.StatusServiceUnavailable, "service_unavailable", "model is loading")
		return
	}
	list := modelList{Object: "list", Data: []model{{
		ID: s.cfg.Model, Object: "model", Created: s.started.Unix(), OwnedBy: "sim",
	}}}
	b, err := json.Marshal(list)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	writeBody(w, http.StatusOK, "application/json", b)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	s.generate(w, r, APIChat)
}

func (s *Server) handleCompletion(w http.ResponseWriter, r *http.Request) {
	s.generate(w, r, APICompletions)
}

// generate serves one completion request of either API and logs it.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, api string) {
	rec := &RequestLog{Received: time.Now(), API: api, ID: s.newID(api)}
	defer func() { s.log.add(*rec) }()
	fail := func(code int, typ, msg string) {
		rec.Status = code
		writeError(w, code, typ, msg)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(http.StatusMethodNotAllowed, "invalid_request_error", "method "+r.Method+" not allowed")
		return
	}
	req, err := readRequest(w, r, api)
	if err != nil {
		fail(http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	forced, force, err := headerFault(r.Header.Get(FaultHeader))
	if err != nil {
		fail(http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	fault, rng := s.draw(forced, force)
	p := s.newPlan(rec.ID, api, req, fault, rng)
	rec.Stream, rec.Prompt, rec.Fault = req.stream, req.prompt, fault
	rec.OutputTokens, rec.PromptTokens = p.n, req.promptWords
	x := &exchange{s: s, w: w, rc: http.NewResponseController(w), r: r, plan: p, rec: rec}
	x.answer()
}

// readRequest reads and parses the body of a completion request.
func readRequest(w http.ResponseWriter, r *http.Request, api string) (parsed, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return parsed{}, fmt.Errorf("could not read body: %w", err)
	}
	if api == APIChat {
		return parseChat(body)
	}
	return parseCompletion(body)
}

// headerFault reads the X-Sim-Fault header: force is false when it is
// absent, and forced is "" when it is "none".
func headerFault(v string) (forced Fault, force bool, err error) {
	switch {
	case v == "":
		return "", false, nil
	case v == noFault:
		return "", true, nil
	case Fault(v).validHeader():
		return Fault(v), true, nil
	}
	return "", false, fmt.Errorf("could not read %s: %w %q", FaultHeader, errUnknownFault, v)
}
