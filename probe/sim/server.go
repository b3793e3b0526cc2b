package sim

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a simulated OpenAI-compatible endpoint. It is an http.Handler,
// safe for concurrent use.
type Server struct {
	cfg      Config
	started  time.Time
	mux      *http.ServeMux
	log      *ring
	ids      atomic.Uint64
	inflight atomic.Int64

	rngMu sync.Mutex
	rng   *rand.Rand

	// lifeMu guards closed and the Add side of handlers.
	lifeMu    sync.Mutex
	closed    bool
	handlers  sync.WaitGroup
	done      chan struct{} // closed by Close: every waiting handler returns
	closeOnce sync.Once

	// Set by Start only.
	httpSrv *http.Server
	url     string
	served  chan struct{} // closed when Serve has returned
}

// New returns a server with cfg's zero fields defaulted and its invalid
// values clamped (see Config.Validate). It listens nowhere: mount it on an
// http.Server or an httptest.Server. Its readiness delay starts now.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:     cfg,
		started: time.Now(),
		mux:     http.NewServeMux(),
		log:     newRing(MaxLogged),
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x5eed)),
		done:    make(chan struct{}),
	}
	s.routes()
	return s
}

// Start validates cfg and returns a server listening on 127.0.0.1 at a free
// port. Close it when done.
func Start(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("could not start sim: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("could not listen: %w", err)
	}
	s := New(cfg)
	s.httpSrv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelDebug),
	}
	s.url = "http://" + ln.Addr().String()
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		if err := s.httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Warn("sim server stopped", "err", err)
		}
	}()
	return s, nil
}

// routes registers the endpoints.
func (s *Server) routes() {
	s.mux.HandleFunc("/v1/chat/completions", s.handleChat)
	s.mux.HandleFunc("/v1/completions", s.handleCompletion)
	s.mux.HandleFunc(RealtimePath, s.handleRealtime)
	s.mux.HandleFunc("/v1/models", s.handleModels)
	s.mux.HandleFunc("/health", s.handleHealth)
	s.mux.HandleFunc("/", handleNotFound)
}

// URL returns the server's root, like "http://127.0.0.1:41234"; clients use
// URL()+"/v1" as their base URL. Empty for a server made by New.
func (s *Server) URL() string { return s.url }

// Requests returns a copy of the log of completion requests that have ended,
// oldest first, at most MaxLogged of them.
func (s *Server) Requests() []RequestLog { return s.log.snapshot() }

// InFlight returns how many requests, of any endpoint, are being handled now.
func (s *Server) InFlight() int { return int(s.inflight.Load()) }

// ServeHTTP serves one request. After Close it answers 503.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeError(w, http.StatusServiceUnavailable, "service_unavailable", "server is closed")
		return
	}
	defer s.handlers.Done()
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	s.mux.ServeHTTP(w, r)
}

func (s *Server) enter() bool {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// Close stops the server: it ends stalled and waiting handlers, closes the
// listener and every active connection (for a server made by Start), and
// waits until every handler and the serving goroutine have returned. Later
// requests answer 503. Close is idempotent and safe for a server made by New.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.lifeMu.Lock()
		s.closed = true
		s.lifeMu.Unlock()
		close(s.done)
		if s.httpSrv != nil {
			if err := s.httpSrv.Close(); err != nil {
				slog.Debug("sim server close", "err", err)
			}
			<-s.served
		}
		s.handlers.Wait()
	})
}

// ready reports whether ReadyAfter has passed since New.
func (s *Server) ready() bool {
	return time.Since(s.started) >= s.cfg.ReadyAfter
}

// draw makes the request's random choices under the server's generator: a
// fault (unless forced) and a generator for the rest of the request. It
// always consumes the same draws, so the sequence of choices depends only on
// the order of the requests.
func (s *Server) draw(forced Fault, force bool) (Fault, *rand.Rand) {
	s.rngMu.Lock()
	u, a, b := s.rng.Float64(), s.rng.Uint64(), s.rng.Uint64()
	s.rngMu.Unlock()
	f := forced
	if !force {
		f = pickFault(u, s.cfg.Faults)
	}
	return f, rand.New(rand.NewPCG(a, b))
}
