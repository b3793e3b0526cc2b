package exporter

import (
	"mime"
	"net"
	"net/http"
	"os"
	"strings"
)

// Headers every response carries, unless the web configuration file
// (http_server_config.headers) sets them otherwise. The pages load only
// their own scripts, style sheets and the inline empty icon.
var securityHeaders = [][2]string{
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
}

// hostOpen are the paths served whatever the Host header says: what
// Kubernetes probes and Prometheus scrapes read (by pod IP or Service name).
var hostOpen = map[string]bool{"/metrics": true, "/-/healthy": true, "/-/ready": true}

// hostPolicy is the set of Host header values the other routes answer, so
// that a page of another site whose name a DNS rebinding points at this
// server cannot read it: IP literals, localhost and its subdomains, the
// machine's host name, and the names given.
type hostPolicy struct {
	anyHost bool
	names   map[string]bool
}

// newHostPolicy allows, besides IP literals and localhost, hostname and
// each of names (a name or host:port; "*" allows any Host).
func newHostPolicy(hostname string, names []string) hostPolicy {
	p := hostPolicy{names: map[string]bool{}}
	for _, n := range append([]string{hostname}, names...) {
		if strings.TrimSpace(n) == "*" {
			p.anyHost = true
		}
		if h := hostOnly(n); h != "" {
			p.names[h] = true
		}
	}
	return p
}

// hostOnly returns the host of a Host value or a name, without port,
// brackets or trailing dot, in lower case.
func hostOnly(hostport string) string {
	h := strings.TrimSpace(hostport)
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}

// allows reports whether the Host header value hostport is allowed; an
// absent Host (HTTP/1.0) is, as no browser sends one.
func (p hostPolicy) allows(hostport string) bool {
	h := hostOnly(hostport)
	switch {
	case p.anyHost, h == "", net.ParseIP(h) != nil:
		return true
	case h == "localhost", strings.HasSuffix(h, ".localhost"):
		return true
	}
	return p.names[h]
}

// simpleContentType reports whether ct is a Content-Type a page of another
// site may send without the browser asking the server first (a form, or
// fetch in no-cors mode).
func simpleContentType(ct string) bool {
	if ct == "" {
		return false
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true // a type the browser would send as is, unparsed here
	}
	switch mt {
	case "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
		return true
	}
	return false
}

// guard wraps h with the security headers, the Host check (every path
// but hostOpen) and, for methods other than GET, HEAD and OPTIONS, the
// refusal of cross-site requests (net/http's CrossOriginProtection:
// Sec-Fetch-Site other than same-origin or none, or an Origin whose host
// is not the Host; 403) and of a body a form could send (415).
func (s *Server) guard(h http.Handler) http.Handler {
	csrf := http.NewCrossOriginProtection()
	checked := csrf.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isUnsafe(r.Method) && simpleContentType(r.Header.Get("Content-Type")) {
			http.Error(w, "refused: a request with a form's or text/plain Content-Type could come from another site's page; "+
				"send no body or another Content-Type", http.StatusUnsupportedMediaType)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, kv := range securityHeaders {
			if w.Header().Get(kv[0]) == "" {
				w.Header().Set(kv[0], kv[1])
			}
		}
		if !hostOpen[r.URL.Path] && !s.hosts.allows(r.Host) {
			http.Error(w, "host not allowed: use an IP address, localhost or this machine's name, or list the name "+
				"with --web.allowed-hosts", http.StatusMisdirectedRequest)
			return
		}
		checked.ServeHTTP(w, r)
	})
}

// isUnsafe reports whether method may change state.
func isUnsafe(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// machineName is the host name the kernel reports, "" when unknown.
func machineName() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}
