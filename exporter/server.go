package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/exporter-toolkit/web"

	pages "github.com/llmprober/llmprober/exporter/web"
)

// ServerOptions configures NewServer.
type ServerOptions struct {
	// Metrics is served on /metrics; nil leaves /metrics unrouted (404).
	Metrics *Metrics
	// Observer feeds the status pages and /-/ready; nil means no targets
	// (the page is empty and /-/ready is 200).
	Observer *Observer
	// Windows adds the windows' figures to the status pages; nil
	// leaves them out. Its JSON API is added with Windows.Register.
	Windows *Windows
	// WebConfigFile is an exporter-toolkit web configuration file (TLS, basic
	// auth, response headers); empty serves plain HTTP without auth.
	WebConfigFile string
	// Version is shown on the status pages; empty shows nothing.
	Version string
	// ConfigPath, when not empty, is the path of the running configuration
	// page (a route added with Handle), which the landing page links.
	ConfigPath string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Limits bounds the clients' time, connections and heavy requests;
	// zero fields take DefaultServerLimits.
	Limits ServerLimits
	// AllowedHosts are the names (or host:port) a request's Host header
	// may name, besides an IP literal, localhost and the machine's host
	// name, on every route but /metrics, /-/healthy and /-/ready; another
	// is answered 421. "*" allows any.
	AllowedHosts []string
}

// Server is the HTTP server: the status pages (the overview on /, a page
// per target on /targets/{name}, their assets under /static/), /metrics,
// /-/healthy, /-/ready, and any route added with Handle. Every response
// carries nosniff, X-Frame-Options DENY and a same-origin
// Content-Security-Policy; requests are refused whose Host is not allowed
// (see ServerOptions.AllowedHosts), or that change state (any method but
// GET, HEAD and OPTIONS) and come from another site or carry a form's body.
type Server struct {
	opts    ServerOptions
	mux     *http.ServeMux
	srv     *http.Server
	records inFlight
	conns   *connLimiter
	hosts   hostPolicy

	shutdownOnce sync.Once
	shutdownErr  error
}

// NewServer returns a Server with its routes registered; it does not listen.
func NewServer(opts ServerOptions) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Limits = opts.Limits.withDefaults()
	lim := opts.Limits
	s := &Server{opts: opts, mux: http.NewServeMux(), records: newInFlight(lim.MaxRecordsRequests),
		conns: newConnLimiter(lim.MaxConnections), hosts: newHostPolicy(machineName(), opts.AllowedHosts)}
	s.mux.HandleFunc("GET /{$}", s.landing)
	s.mux.HandleFunc("GET /targets/{name}", s.targetPage)
	s.mux.Handle("GET "+pages.StaticPrefix, pages.Static())
	s.mux.HandleFunc("GET /-/healthy", healthy)
	s.mux.HandleFunc("GET /-/ready", s.ready)
	if opts.Metrics != nil {
		s.mux.Handle("GET /metrics", newInFlight(lim.MaxMetricsRequests).limit(opts.Metrics.Handler(), metricsRefused))
	}
	s.srv = &http.Server{
		Handler:           s.guard(s.mux),
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		WriteTimeout:      lim.WriteTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    lim.MaxHeaderBytes,
		ConnState:         s.conns.ConnState,
		ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
	}
	return s
}

// metricsRefused answers a /metrics request beyond MaxMetricsRequests.
func metricsRefused(w http.ResponseWriter, _ *http.Request) {
	http.Error(w, "too many concurrent /metrics requests; retry later", http.StatusTooManyRequests)
}

// Handle adds a route (a net/http ServeMux pattern such as "GET /api/v1/status").
// Call it before Serve.
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// Handler returns the router with its security headers, Host check and
// cross-site refusal, without the web configuration's TLS or auth.
func (s *Server) Handler() http.Handler { return s.srv.Handler }

// Serve accepts connections on l until Shutdown, at most
// Limits.MaxConnections at once (when all are taken, a new client gets the
// slot of the connection idle the longest), applying the web
// configuration file if one is set. It returns nil after Shutdown.
func (s *Server) Serve(l net.Listener) error {
	path := s.opts.WebConfigFile
	l = s.conns.Listener(l)
	err := web.Serve(l, s.srv, &web.FlagConfig{WebConfigFile: &path}, s.opts.Logger)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("could not serve: %w", err)
	}
	return nil
}

// Shutdown stops accepting connections, closes the idle ones, and waits
// for the requests in progress until ctx ends or Limits.ShutdownTimeout
// has passed, whichever comes first; then it closes the connections still
// open (a slow client is cut, not waited for). It returns an error only
// when the server could not be closed. It is idempotent and safe without
// Serve.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, s.opts.Limits.ShutdownTimeout)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err == nil || !errors.Is(err, ctx.Err()) {
			s.shutdownErr = wrapShutdown(err)
			return
		}
		s.opts.Logger.Warn("closing HTTP connections still busy at shutdown", "waited", s.opts.Limits.ShutdownTimeout)
		s.shutdownErr = wrapShutdown(s.srv.Close())
	})
	return s.shutdownErr
}

// wrapShutdown wraps a failure to shut the server down; nil stays nil.
func wrapShutdown(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("could not shut down HTTP server: %w", err)
}

// healthy answers 200 while the server is serving.
func healthy(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = fmt.Fprintln(w, "Healthy")
}

// ready answers 200 once every target is ready and has finished a request,
// else 503 naming the targets still missing.
func (s *Server) ready(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var missing []string
	if s.opts.Observer != nil {
		missing = s.opts.Observer.NotReady()
	}
	if len(missing) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = fmt.Fprintf(w, "Not ready: %s\n", strings.Join(missing, ", "))
		return
	}
	_, _ = fmt.Fprintln(w, "Ready")
}
