package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer closeBody(resp)
	return resp.StatusCode, string(readAll(t, resp.Body))
}

func TestRoutesAndErrors(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		errType                  string // "" for a successful answer
	}{
		{name: "unknown path", method: "GET", path: "/v2/nothing", status: 404, errType: "not_found_error"},
		{name: "bad JSON", method: "POST", path: "/v1/chat/completions", body: `{"messages":`, status: 400, errType: "invalid_request_error"},
		{name: "no messages", method: "POST", path: "/v1/chat/completions", body: `{"messages":[]}`, status: 400, errType: "invalid_request_error"},
		{name: "bad content", method: "POST", path: "/v1/chat/completions", body: `{"messages":[{"role":"user","content":7}]}`, status: 400, errType: "invalid_request_error"},
		{name: "no prompt", method: "POST", path: "/v1/completions", body: `{"max_tokens":3}`, status: 400, errType: "invalid_request_error"},
		{name: "negative max", method: "POST", path: "/v1/completions", body: `{"prompt":"x","max_tokens":-1}`, status: 400, errType: "invalid_request_error"},
		{name: "wrong method", method: "GET", path: "/v1/chat/completions", status: 405, errType: "invalid_request_error"},
		{name: "post to models", method: "POST", path: "/v1/models", status: 405, errType: "invalid_request_error"},
		{name: "health", method: "GET", path: "/health", status: 200},
	}
	s, c := start(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, s.URL()+tt.path, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tt.method, tt.path, err)
			}
			defer closeBody(resp)
			var e errorBody
			decodeErr := json.Unmarshal(readAll(t, resp.Body), &e)
			if resp.StatusCode != tt.status || decodeErr != nil || e.Error.Type != tt.errType ||
				(tt.errType != "" && (e.Error.Code != tt.status || e.Error.Message == "")) {
				t.Errorf("status %d error %+v (%v), want %d %q", resp.StatusCode, e, decodeErr, tt.status, tt.errType)
			}
		})
	}
}

func TestUnknownFaultHeader(t *testing.T) {
	s, c := start(t, Config{})
	resp := post(context.Background(), t, c, s.URL()+"/v1/completions", `{"prompt":"x"}`, "meteor")
	defer closeBody(resp)
	if b := readAll(t, resp.Body); resp.StatusCode != 400 || !strings.Contains(string(b), "unknown fault") {
		t.Errorf("status %d body %s, want 400 unknown fault", resp.StatusCode, b)
	}
}

func TestModels(t *testing.T) {
	s, c := start(t, Config{Model: "m1"})
	status, body := get(t, c, s.URL()+"/v1/models")
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || status != 200 ||
		list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != "m1" || list.Data[0].Object != "model" {
		t.Errorf("status %d body %s (%v)", status, body, err)
	}
}

func TestReadiness(t *testing.T) {
	const readyAfter = 300 * time.Millisecond
	s, c := start(t, Config{ReadyAfter: readyAfter})
	for _, path := range []string{"/health", "/v1/models"} {
		status, _ := get(t, c, s.URL()+path)
		// Only a response that came back before ReadyAfter must be 503; on a
		// very slow machine the first answer may already be 200.
		if time.Since(s.started) < readyAfter && status != http.StatusServiceUnavailable {
			t.Errorf("%s before ReadyAfter: status %d, want 503", path, status)
		}
	}
	var readyAt time.Time
	waitFor(t, "readiness", func() bool {
		status, _ := get(t, c, s.URL()+"/health")
		readyAt = time.Now()
		return status == http.StatusOK
	})
	if got := readyAt.Sub(s.started); got < readyAfter {
		t.Errorf("ready %s after start, want at least %s", got, readyAfter)
	}
	if status, _ := get(t, c, s.URL()+"/v1/models"); status != http.StatusOK {
		t.Errorf("/v1/models after readiness: status %d, want 200", status)
	}
}

func TestSeededFaults(t *testing.T) {
	statuses := func(cfg Config, header string) []int {
		s, c := start(t, cfg)
		var out []int
		for range 20 {
			resp := post(context.Background(), t, c, s.URL()+"/v1/completions", `{"prompt":"x","max_tokens":1}`, header)
			readAll(t, resp.Body)
			closeBody(resp)
			out = append(out, resp.StatusCode)
		}
		return out
	}
	all := func(code int) []int { return slices.Repeat([]int{code}, 20) }
	mixed := Config{Seed: 42, Faults: map[Fault]float64{FaultHTTP500: 0.3, FaultHTTP429: 0.3}}
	first, second := statuses(mixed, ""), statuses(mixed, "")
	if !slices.Equal(first, second) {
		t.Errorf("same seed, different faults:\n%v\n%v", first, second)
	}
	for _, code := range []int{200, 429, 500} {
		if !slices.Contains(first, code) {
			t.Errorf("seeded sequence %v has no %d", first, code)
		}
	}
	tests := []struct {
		name   string
		cfg    Config
		header string
		want   []int
	}{
		{"probability 1", Config{Faults: map[Fault]float64{FaultHTTP500: 1}}, "", all(500)},
		{"probability 0", Config{Faults: map[Fault]float64{FaultHTTP500: 0}}, "", all(200)},
		{"header none beats probability 1", Config{Faults: map[Fault]float64{FaultHTTP500: 1}}, "none", all(200)},
		{"header beats probability", Config{Faults: map[Fault]float64{FaultHTTP500: 1}}, "http_429", all(429)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := statuses(tt.cfg, tt.header); !slices.Equal(got, tt.want) {
				t.Errorf("statuses %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCloseEndsStalledRequests(t *testing.T) {
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	c := &http.Client{Transport: tr}
	bodies := []struct{ path, body string }{
		{"/v1/chat/completions", faultBody},
		{"/v1/chat/completions", faultBody},
		{"/v1/completions", `{"prompt":"x"}`},
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(bodies))
	for _, b := range bodies {
		wg.Go(func() {
			resp, err := postErr(context.Background(), c, s.URL()+b.path, b.body, "stall")
			if err == nil {
				got := readSSE(resp.Body, nil)
				closeBody(resp)
				err = got.err
			}
			errs <- err
		})
	}
	waitFor(t, "three stalled requests", func() bool { return s.InFlight() == 3 })
	s.Close()
	s.Close() // idempotent
	wg.Wait()
	close(errs)
	for err := range errs {
		// A stalled stream ends cleanly or with an error; the unary one fails.
		t.Logf("client saw %v", err)
	}
	tr.CloseIdleConnections()
	for _, l := range s.Requests() {
		if !l.Canceled || l.Fault != FaultStall {
			t.Errorf("log %+v, want a canceled stall", l)
		}
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d log entries, want 3", n)
	}
	goleak.VerifyNone(t)
}

func TestHandlerWithoutListener(t *testing.T) {
	s := New(Config{OutputTokens: 2})
	hs := httptest.NewServer(s)
	defer hs.Close()
	c := hs.Client()
	defer c.CloseIdleConnections()
	resp := post(context.Background(), t, c, hs.URL+"/v1/chat/completions",
		`{"stream":true,"messages":[{"role":"user","content":"x"}]}`, "reset")
	got := readSSE(resp.Body, nil)
	closeBody(resp)
	// OutputTokens 2: the reset strikes after min(3, 2/2) = 1 token.
	if got.err == nil || len(got.data) > 2 {
		t.Errorf("read %d events, error %v; want at most 2 then an error", len(got.data), got.err)
	}
	if s.URL() != "" {
		t.Errorf("URL %q, want empty without a listener", s.URL())
	}
	s.Close()
	status, _ := get(t, c, hs.URL+"/health")
	if status != http.StatusServiceUnavailable {
		t.Errorf("status after Close %d, want 503", status)
	}
}

func TestConcurrentClients(t *testing.T) {
	const clients = 16
	s, c := start(t, Config{ITL: Latency{Mean: time.Millisecond}})
	var wg sync.WaitGroup
	counts := make([]int, clients)
	for i := range clients {
		wg.Go(func() {
			body := fmt.Sprintf(`{"stream":true,"max_tokens":%d,"messages":[{"role":"user","content":"x"}]}`, i+1)
			resp, err := postErr(context.Background(), c, s.URL()+"/v1/chat/completions", body, "")
			if err != nil {
				t.Errorf("client %d: %v", i, err)
				return
			}
			defer closeBody(resp)
			for _, e := range readSSE(resp.Body, nil).data {
				if kind, _ := classify(e); kind == "content" {
					counts[i]++
				}
			}
		})
	}
	wg.Wait()
	for i, n := range counts {
		if n != i+1 {
			t.Errorf("client %d got %d tokens, want %d", i, n, i+1)
		}
	}
	ids := map[string]bool{}
	for _, l := range logOf(t, s, clients) {
		ids[l.ID] = true
	}
	if len(ids) != clients {
		t.Errorf("%d distinct ids, want %d", len(ids), clients)
	}
}

func TestClientCancelStopsHandler(t *testing.T) {
	// The second token is an hour away: only the cancel can end the handler.
	s, c := start(t, Config{ITL: Latency{Mean: time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := post(ctx, t, c, s.URL()+"/v1/chat/completions",
		`{"stream":true,"max_tokens":3,"messages":[{"role":"user","content":"x"}]}`, "")
	got := readSSE(resp.Body, func(i int, _ string) {
		if i == 1 { // role chunk, then the first token
			cancel()
		}
	})
	closeBody(resp)
	if !errors.Is(got.err, context.Canceled) {
		t.Errorf("read error %v, want context canceled", got.err)
	}
	if l := logOf(t, s, 1)[0]; !l.Canceled || len(l.TokenSent) != 1 || l.OutputTokens != 3 {
		t.Errorf("log %+v, want canceled after 1 of 3 tokens", l)
	}
}
