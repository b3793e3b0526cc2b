package openai

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/llmprober/llmprober/probe"
)

// plantedKey is the API key the redaction tests plant in what servers send.
const plantedKey = "sk-PLANTED-0123456789abcdef"

// leaks returns the longest start of plantedKey, of at least 3 bytes,
// found in s; "" when none is.
func leaks(s string) string {
	for k := len(plantedKey); k >= 3; k-- {
		if strings.Contains(s, plantedKey[:k]) {
			return plantedKey[:k]
		}
	}
	return ""
}

// bodyServer answers every request with the next of its bodies, with the
// given status and content type.
type bodyServer struct {
	status int
	ctype  string
	mu     sync.Mutex
	bodies []string
}

func (s *bodyServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	body := s.bodies[0]
	s.bodies = s.bodies[1:]
	s.mu.Unlock()
	w.Header().Set("Content-Type", s.ctype)
	w.WriteHeader(s.status)
	_, _ = w.Write([]byte(body))
}

// TestRedactionAroundEveryCut plants the key at every offset around each
// place where server text is cut: the 64 KiB read of an error body (a
// status ≥ 400, and a stream answered with another content type), and
// the 200 characters of the record's error text. White space pads the
// key so that the collapsed text shows what the cut left of it; text
// pads it too. No part of the key may reach the record.
func TestRedactionAroundEveryCut(t *testing.T) {
	type place struct {
		name   string
		status int
		ctype  string
		cut    int
	}
	for _, p := range []place{
		{"error body at its read limit", 500, "text/plain", drainBytes},
		{"error body around the old 800-byte cut", 502, "text/html", 800},
		{"error text at 200 characters", 503, "text/plain", probe.MaxErrorChars - len("HTTP 503: ")},
		{"stream of another content type at the read limit", 200, "text/html", drainBytes},
	} {
		for _, pad := range []string{" ", "x"} {
			t.Run(p.name+" padded with "+pad, func(t *testing.T) {
				srv := &bodyServer{status: p.status, ctype: p.ctype}
				var offsets []int
				for off := p.cut - len(plantedKey) - 2; off <= p.cut+2; off++ {
					offsets = append(offsets, off)
					srv.bodies = append(srv.bodies, strings.Repeat(pad, off)+plantedKey+strings.Repeat(pad, 100))
				}
				url, client := newTestServer(t, srv)
				b := newBackend(t, url, client, func(c *Config) { c.Secrets = []string{plantedKey} })
				for _, off := range offsets {
					rec := b.Do(context.Background(), request())
					if rec.Outcome != probe.Errored {
						t.Fatalf("key at %d: outcome %s", off, rec.Outcome)
					}
					if l := leaks(rec.Error + rec.ErrorCode.Text); l != "" {
						t.Errorf("key at %d: error %q leaks %q", off, rec.Error, l)
					}
				}
			})
		}
	}
}

// TestRedactedErrorCode: a code that carries the key is redacted too.
func TestRedactedErrorCode(t *testing.T) {
	srv := &bodyServer{status: 401, ctype: "application/json",
		bodies: []string{`{"error":{"message":"bad key ` + plantedKey + `","code":"` + plantedKey + `"}}`}}
	url, client := newTestServer(t, srv)
	rec := newBackend(t, url, client, func(c *Config) { c.Secrets = []string{plantedKey} }).Do(context.Background(), request())
	if rec.Error != "HTTP 401: bad key REDACTED" || rec.ErrorCode != (probe.ErrorCode{Text: "REDACTED", Kind: probe.CodeString}) {
		t.Errorf("error %q, code %q", rec.Error, rec.ErrorCode)
	}
}
